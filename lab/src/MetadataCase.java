import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.server.common.ApiMessageAndVersion;

import java.io.File;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The KRaft metadata log, __cluster_metadata-0: the release's KRaft control
 * records (LeaderChange, and KRaftVersion/Voters where the release has
 * them), then every metadata record type at every version in two variants
 * (all fields set; nullable fields null), written by MetadataRecordSerde;
 * and a snapshot (.checkpoint) with a header, the control records, one
 * record of each type at its newest version, and a footer.
 */
final class MetadataCase {
    private static final String PKG = "org.apache.kafka.common.metadata";
    private static final int EPOCH = 1;
    private final KsegLab lab;
    private final Object serde;
    private final Method recordSize;
    private final Method write;
    private final Method read;
    private final Map<String, JsonNode> controls;

    MetadataCase(KsegLab lab) throws Exception {
        this.lab = lab;
        Class<?> c = Class.forName("org.apache.kafka.metadata.MetadataRecordSerde");
        this.serde = c.getField("INSTANCE").get(null);
        this.recordSize = c.getMethod("recordSize", ApiMessageAndVersion.class, ObjectSerializationCache.class);
        this.write = c.getMethod("write", ApiMessageAndVersion.class, ObjectSerializationCache.class, Writable.class);
        this.read = c.getMethod("read", Readable.class, int.class);
        this.controls = Schemas.load(lab.schemaDir("clients", "common/message"));
    }

    private byte[] serialize(ApiMessageAndVersion record) throws Exception {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = (int) recordSize.invoke(serde, record, cache);
        ByteBuffer buf = ByteBuffer.allocate(size);
        write.invoke(serde, record, cache, new ByteBufferAccessor(buf));
        return buf.array();
    }

    /** A filled KRaft control message for a MemoryRecords.with* method, or null if the release has none. */
    private ApiMessage control(String method, long seed) throws Exception {
        Class<?> c = KsegLab.controlMessageClass(method);
        if (c == null) return null;
        ApiMessage m = (ApiMessage) c.getConstructor().newInstance();
        Filler filler = new Filler(seed, 0);
        filler.fixed.put("version", (short) 0);
        filler.fill(m, controls.get(c.getSimpleName()), 0);
        return m;
    }

    void write() throws Exception {
        Map<Integer, JsonNode> byKey = new TreeMap<>();
        for (JsonNode s : KsegLab.withType(Schemas.load(lab.schemaDir("metadata", "common/metadata")), "metadata").values()) {
            byKey.put(s.get("apiKey").asInt(), s);
        }
        File caseDir = new File(lab.out, "internal-cluster-metadata");
        File partDir = new File(caseDir, "__cluster_metadata-0");
        List<MemoryRecords> batches = new ArrayList<>();
        List<String> written = new ArrayList<>();
        long offset = 0;
        long seed = 77;
        for (String method : new String[] {"withLeaderChangeMessage", "withKRaftVersionRecord", "withVotersRecord"}) {
            ApiMessage m = control(method, seed++);
            if (m == null) continue;
            batches.add(KsegLab.controlBatch(method, offset, KsegLab.BASE_TIME, EPOCH, m));
            written.add(m.getClass().getSimpleName() + " (control)");
            offset++;
        }
        List<SimpleRecord> pending = new ArrayList<>();
        List<SimpleRecord> newest = new ArrayList<>();
        for (JsonNode schema : byKey.values()) {
            List<Integer> versions = Schemas.versions(schema);
            for (int version : versions) {
                for (int variant = 0; variant < 2; variant++) {
                    ApiMessage m = KsegLab.newMessage(PKG, schema.get("name").asText());
                    new Filler(seed++, variant).fill(m, schema, version);
                    SimpleRecord r = new SimpleRecord(KsegLab.BASE_TIME + (offset + pending.size()) * 41, null,
                        serialize(KsegLab.mav(m, version)));
                    pending.add(r);
                    if (variant == 0 && version == versions.get(versions.size() - 1)) newest.add(r);
                    written.add(schema.get("name").asText() + " v" + version + (variant == 1 ? " (nullable fields null)" : ""));
                    if (pending.size() == 4) {
                        batches.add(KsegLab.batch(offset, pending));
                        offset += pending.size();
                        pending = new ArrayList<>();
                    }
                }
            }
        }
        if (!pending.isEmpty()) {
            batches.add(KsegLab.batch(offset, pending));
            offset += pending.size();
        }
        File log = new File(partDir, String.format("%020d.log", 0));
        KsegLab.writeLog(log, batches);

        // The snapshot: header, control records, one record of each type, footer (offsets from 0).
        List<MemoryRecords> snap = new ArrayList<>();
        long so = 0;
        long snapTime = KsegLab.BASE_TIME + 3_600_000;
        List<String> snapWritten = new ArrayList<>();
        for (String method : new String[] {"withSnapshotHeaderRecord", "withKRaftVersionRecord", "withVotersRecord"}) {
            ApiMessage m = control(method, seed++);
            if (m == null) continue;
            snap.add(KsegLab.controlBatch(method, so++, snapTime, EPOCH, m));
            snapWritten.add(m.getClass().getSimpleName());
        }
        for (int i = 0; i < newest.size(); i += 8) {
            List<SimpleRecord> part = newest.subList(i, Math.min(i + 8, newest.size()));
            snap.add(KsegLab.batch(so, part));
            so += part.size();
        }
        snapWritten.add(newest.size() + " metadata records (each type at its newest version)");
        ApiMessage footer = control("withSnapshotFooterRecord", seed++);
        snap.add(KsegLab.controlBatch("withSnapshotFooterRecord", so++, snapTime, EPOCH, footer));
        snapWritten.add("SnapshotFooterRecord");
        File checkpoint = new File(partDir, String.format("%020d-%010d.checkpoint", offset, EPOCH));
        KsegLab.writeLog(checkpoint, snap);

        ObjectNode view = lab.header("internal-cluster-metadata", "__cluster_metadata");
        view.put("decoding", "data records: {type: MetadataRecordType.fromId(apiKey).toString(), version, data: "
            + "MetadataJsonConverters.writeJson} after MetadataRecordSerde.read; key null; control records: key {version, type, "
            + "controlType}, value {version, data: <Message>JsonConverter.write}");
        view.set("recordsWritten", KsegLab.array(written));
        view.set("snapshotWritten", KsegLab.array(snapWritten));
        ObjectNode partition = view.putObject("partition");
        partition.put("dir", partDir.getName());
        ObjectNode seg = partition.putArray("segments").addObject();
        seg.put("baseOffset", 0);
        seg.set("log", LogView.read(log, new Reader()));
        ObjectNode ks = partition.putArray("kraftSnapshots").addObject();
        ks.put("file", checkpoint.getName());
        ks.set("records", LogView.read(checkpoint, new Reader()));
        view.put("logEndOffset", offset);
        lab.finish(caseDir, view, readme(written, snapWritten, offset, checkpoint.getName()));
    }

    private String readme(List<String> written, List<String> snap, long end, String checkpoint) {
        StringBuilder b = new StringBuilder();
        b.append("internal-cluster-metadata (release ").append(lab.release).append(", commit ").append(lab.commit).append(")\n\n");
        b.append("The KRaft metadata log, __cluster_metadata-0, written by the lab harness (lab/ in kseg) with this release's\n");
        b.append("own classes compiled from source: KRaft control batches by MemoryRecords.with*(LeaderChange, KRaftVersion,\n");
        b.append("Voters where the release has them), then every metadata record type at every version in two variants (all\n");
        b.append("fields set; every field nullable at that version null), generated messages serialized by MetadataRecordSerde,\n");
        b.append("batched by MemoryRecords.withRecords (4 a batch, no compression), appended by FileRecords. Then the snapshot\n");
        b.append(checkpoint).append(": ").append(String.join(", ", snap)).append(".\n");
        b.append("Field values are random (seeded), not a coherent cluster: the case is for decoding, not replay.\n\n");
        b.append("kafka-view.json is Kafka's own reading: FileRecords.batches, batch accessors, record iteration,\n");
        b.append("MetadataRecordSerde.read + MetadataJsonConverters, control records by their generated messages' read + JsonConverters.\n\n");
        b.append("Log end offset ").append(end).append(". Records in log order:\n");
        long o = 0;
        for (String w : written) b.append("  ").append(o++).append(": ").append(w).append('\n');
        return b.toString();
    }

    /** Kafka's reading of a metadata record: MetadataRecordSerde.read, MetadataRecordType, MetadataJsonConverters. */
    private final class Reader implements LogView.Decoder {
        @Override
        public JsonNode key(ByteBuffer key, ByteBuffer value) {
            return key == null ? null : KsegLab.JSON.getNodeFactory().textNode(KsegLab.base64(key));
        }

        @Override
        public JsonNode value(ByteBuffer key, ByteBuffer value) throws Exception {
            if (value == null) return null;
            ApiMessageAndVersion r = (ApiMessageAndVersion) read.invoke(serde, new ByteBufferAccessor(value.duplicate()), value.remaining());
            ObjectNode o = KsegLab.JSON.createObjectNode();
            o.put("base64", KsegLab.base64(value));
            Class<?> types = Class.forName(PKG + ".MetadataRecordType");
            Object type = types.getMethod("fromId", short.class).invoke(null, r.message().apiKey());
            o.put("type", type.toString());
            o.put("version", r.version());
            Method json = Class.forName(PKG + ".MetadataJsonConverters").getMethod("writeJson", ApiMessage.class, short.class);
            o.set("data", (JsonNode) json.invoke(null, r.message(), r.version()));
            return o;
        }
    }
}
