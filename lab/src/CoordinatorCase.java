import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
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
 * A coordinator log partition (__consumer_offsets or __share_group_state):
 * every record type the release's serde reads, every value version of
 * each in two variants (all fields set; nullable fields null), and a
 * tombstone per type; written with the release's own serde and read back
 * with it (Kafka's JSON converters for the view).
 */
final class CoordinatorCase {
    private final KsegLab lab;
    private final String name;
    private final String topic;
    private final String module;
    private final String pkg;
    private final Object serde;
    private final Method serializeKey;
    private final Method serializeValue;
    private final Method deserialize;
    private final Class<?> recordClass;
    private final List<String> notes = new ArrayList<>();

    CoordinatorCase(KsegLab lab, String name, String topic, String module, String pkg, String[] serdeNames) throws Exception {
        this.lab = lab;
        this.name = name;
        this.topic = topic;
        this.module = module;
        this.pkg = pkg;
        Object found = null;
        for (String s : serdeNames) {
            try {
                found = Class.forName(s).getConstructor().newInstance();
                notes.add("serde: " + s);
                break;
            } catch (ClassNotFoundException e) {
                // an older or newer release names it otherwise
            }
        }
        if (found == null) throw new IllegalStateException("no serde among " + String.join(", ", serdeNames));
        this.serde = found;
        Method k = null, v = null, d = null;
        for (Method m : serde.getClass().getMethods()) {
            if (m.isBridge()) continue;
            if (m.getName().equals("serializeKey") && m.getParameterCount() == 1) k = m;
            if (m.getName().equals("serializeValue") && m.getParameterCount() == 1) v = m;
            if (m.getName().equals("deserialize") && m.getParameterCount() == 2) d = m;
        }
        this.serializeKey = k;
        this.serializeValue = v;
        this.deserialize = d;
        this.recordClass = k.getParameterTypes()[0];
    }

    /** The record types a key schema stands for: its apiKey (4.x), else its versions (3.x, where the key version is the type). */
    private static List<Integer> types(JsonNode key) {
        if (key.has("apiKey")) return List.of(key.get("apiKey").asInt());
        return Schemas.versions(key);
    }

    /** A coordinator record, as this release builds one (CoordinatorRecord.record/tombstone from 4.0, a constructor before). */
    private Object record(ApiMessage key, int type, ApiMessageAndVersion value) throws Exception {
        Method rec = KsegLab.staticMethod(recordClass, "record", 2);
        if (rec != null) {
            if (value == null) return KsegLab.staticMethod(recordClass, "tombstone", 1).invoke(null, key);
            return rec.invoke(null, key, value);
        }
        return KsegLab.anyConstructor(recordClass, 2).newInstance(KsegLab.mav(key, type), value);
    }

    /** The key write version: the type in 3.x (keys' versions are the types), else the key schema's lowest. */
    private static int keyVersion(JsonNode key, int type) {
        return key.has("apiKey") ? Schemas.versions(key).get(0) : type;
    }

    void write() throws Exception {
        Map<String, JsonNode> schemas = Schemas.load(lab.schemaDir(module, "common/message"));
        TreeMap<Integer, String[]> byType = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : schemas.entrySet()) {
            String n = e.getKey();
            if (!n.endsWith("Key")) continue;
            String valueName = n.substring(0, n.length() - 3) + "Value";
            if (!schemas.containsKey(valueName)) continue;
            for (int t : types(e.getValue())) byType.put(t, new String[] {n, valueName});
        }
        File caseDir = new File(lab.out, "internal-" + name);
        File partDir = new File(caseDir, topic + "-0");
        List<SimpleRecord> pending = new ArrayList<>();
        List<MemoryRecords> batches = new ArrayList<>();
        List<String> written = new ArrayList<>();
        long offset = 0;
        long next = 0;
        long seed = 33;
        for (Map.Entry<Integer, String[]> e : byType.entrySet()) {
            int type = e.getKey();
            JsonNode keySchema = schemas.get(e.getValue()[0]);
            JsonNode valueSchema = schemas.get(e.getValue()[1]);
            List<SimpleRecord> forType = new ArrayList<>();
            for (int version : Schemas.versions(valueSchema)) {
                for (int variant = 0; variant < 2; variant++) {
                    ApiMessage key = KsegLab.newMessage(pkg, e.getValue()[0]);
                    new Filler(seed++, 0).fill(key, keySchema, keyVersion(keySchema, type));
                    ApiMessage value = KsegLab.newMessage(pkg, e.getValue()[1]);
                    Filler filler = new Filler(seed++, variant);
                    ConsumerProtocolBytes.fix(filler, e.getValue()[1], version, variant, seed);
                    filler.fill(value, valueSchema, version);
                    Object rec = record(key, type, KsegLab.mav(value, version));
                    forType.add(new SimpleRecord(KsegLab.BASE_TIME + next * 37, (byte[]) serializeKey.invoke(serde, rec),
                        (byte[]) serializeValue.invoke(serde, rec)));
                    next++;
                    written.add(type + " " + e.getValue()[1] + " v" + version + (variant == 1 ? " (nullable fields null)" : ""));
                }
            }
            ApiMessage key = KsegLab.newMessage(pkg, e.getValue()[0]);
            new Filler(seed++, 0).fill(key, keySchema, keyVersion(keySchema, type));
            Object tomb = record(key, type, null);
            forType.add(new SimpleRecord(KsegLab.BASE_TIME + next * 37, (byte[]) serializeKey.invoke(serde, tomb), null));
            next++;
            written.add(type + " " + e.getValue()[0] + " tombstone");
            // Keep only the types this release's serde reads back.
            try {
                SimpleRecord first = forType.get(0);
                deserialize.invoke(serde, first.key().duplicate(), first.value() == null ? null : first.value().duplicate());
            } catch (java.lang.reflect.InvocationTargetException ex) {
                notes.add("record type " + type + " (" + e.getValue()[0] + "): schema present but the serde does not read it ("
                    + ex.getCause() + "); left out");
                written.removeIf(w -> w.startsWith(type + " "));
                next -= forType.size();
                continue;
            }
            for (SimpleRecord r : forType) {
                pending.add(r);
                if (pending.size() == 4) {
                    batches.add(KsegLab.batch(offset, pending));
                    offset += pending.size();
                    pending = new ArrayList<>();
                }
            }
        }
        if (!pending.isEmpty()) {
            batches.add(KsegLab.batch(offset, pending));
            offset += pending.size();
        }
        File log = new File(partDir, String.format("%020d.log", 0));
        KsegLab.writeLog(log, batches);

        ObjectNode view = lab.header("internal-" + name, topic);
        view.put("decoding", "key {type (string), data: <Key>JsonConverter.write(key, key version)}, value {version (string), data: "
            + "<Value>JsonConverter.write(value, version)} from the release's own serde's deserialize; tombstone value = null; "
            + "GroupMetadataValue members' subscription/assignment of protocolType consumer replaced by ConsumerProtocolSubscription/"
            + "Assignment JsonConverter output (as kafka-dump-log's offsets decoder)");
        view.set("notes", KsegLab.array(notes));
        view.set("recordsWritten", KsegLab.array(written));
        ObjectNode partition = view.putObject("partition");
        partition.put("dir", partDir.getName());
        ArrayNode segments = partition.putArray("segments");
        ObjectNode seg = segments.addObject();
        seg.put("baseOffset", 0);
        seg.set("log", LogView.read(log, new Reader()));
        view.put("logEndOffset", offset);
        lab.finish(caseDir, view, readme(written, offset));
    }

    private String readme(List<String> written, long end) {
        StringBuilder b = new StringBuilder();
        b.append("internal-").append(name).append(" (release ").append(lab.release).append(", commit ").append(lab.commit).append(")\n\n");
        b.append("One partition of ").append(topic).append(", ").append(topic).append("-0, written by the lab harness (lab/ in kseg)\n");
        b.append("with this release's own classes compiled from source: generated messages filled field by field for every\n");
        b.append("version of every record type the release's serde reads (two variants each: all fields set, and every field\n");
        b.append("nullable at that version null), serialized by the release's serde, batched by MemoryRecords.withRecords\n");
        b.append("(4 records a batch, no compression) and appended by FileRecords. Field values are random (seeded), not a\n");
        b.append("coherent group state: the case is for decoding, not replay.\n\n");
        b.append("kafka-view.json is Kafka's own reading: FileRecords.batches, batch accessors, record iteration, the serde's\n");
        b.append("deserialize and the generated JsonConverters.\n\nLog end offset ").append(end).append(". Notes:\n");
        for (String n : notes) b.append("  - ").append(n).append('\n');
        b.append("\nRecords in log order:\n");
        long o = 0;
        for (String w : written) b.append("  ").append(o++).append(": ").append(w).append('\n');
        return b.toString();
    }

    /** Kafka's reading of this case's records, for another case of the same topic. */
    LogView.Decoder reader() {
        return new Reader();
    }

    /** Kafka's reading of a coordinator record: the serde, then the generated JSON converters. */
    private final class Reader implements LogView.Decoder {
        private Object decode(ByteBuffer key, ByteBuffer value) throws Exception {
            return deserialize.invoke(serde, key.duplicate(), value == null ? null : value.duplicate());
        }

        @Override
        public JsonNode key(ByteBuffer key, ByteBuffer value) throws Exception {
            Object rec = decode(key, value);
            Object k = rec.getClass().getMethod("key").invoke(rec);
            ApiMessage message;
            int version;
            if (k instanceof ApiMessageAndVersion) {
                message = ((ApiMessageAndVersion) k).message();
                version = ((ApiMessageAndVersion) k).version();
            } else {
                message = (ApiMessage) k;
                version = 0;
            }
            ObjectNode o = KsegLab.JSON.createObjectNode();
            o.put("base64", KsegLab.base64(key));
            o.put("type", String.valueOf(key.getShort(key.position())));
            o.set("data", KsegLab.converterJson(message, version));
            return o;
        }

        @Override
        public JsonNode value(ByteBuffer key, ByteBuffer value) throws Exception {
            if (value == null) return null;
            Object rec = decode(key, value);
            ApiMessageAndVersion v = (ApiMessageAndVersion) rec.getClass().getMethod("value").invoke(rec);
            ObjectNode o = KsegLab.JSON.createObjectNode();
            o.put("base64", KsegLab.base64(value));
            o.put("version", String.valueOf(v.version()));
            JsonNode data = KsegLab.converterJson(v.message(), v.version());
            ConsumerProtocolBytes.decodeMembers(v.message(), data);
            o.set("data", data);
            return o;
        }
    }
}
