import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataCache;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteState;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The lab's tiered-storage case: a `__remote_log_metadata-0` partition
 * telling one coherent story (uploads finishing, segments deleted, one
 * upload and one delete that never finish, a topic deleted), every record
 * serialized by the release's own RemoteLogMetadataSerde; then Kafka's
 * reading of it (the serde's deserialize and toString, the generated JSON
 * converters) and the state the release's RemoteLogMetadataCache holds per
 * partition after replaying the segment records.
 */
public final class RemoteCase {
    static final String GEN = "org.apache.kafka.server.log.remote.metadata.storage.generated";

    private final KsegLab lab;
    private final RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
    private final List<RemoteLogMetadata> events = new ArrayList<>();
    private final List<String> told = new ArrayList<>();
    private long clock = KsegLab.BASE_TIME;

    private RemoteCase(KsegLab lab) {
        this.lab = lab;
    }

    /** This case alone, from a scratch dir built before: RemoteCase <src> <release dir> <release> <commit>. */
    public static void main(String[] args) throws Exception {
        write(new KsegLab(new File(args[0]), new File(args[1]), args[2], args[3]));
    }

    /** Entry point the harness calls by reflection. */
    public static void write(KsegLab lab) throws Exception {
        new RemoteCase(lab).run();
    }

    private static TopicIdPartition tp(String uuid, String topic, int partition) {
        return new TopicIdPartition(Uuid.fromString(uuid), new TopicPartition(topic, partition));
    }

    private static RemoteLogSegmentId id(TopicIdPartition tp, String uuid) {
        return new RemoteLogSegmentId(tp, Uuid.fromString(uuid));
    }

    private void copyStarted(RemoteLogSegmentId id, long start, long end, int broker, int size, Map<Integer, Long> epochs) {
        clock += 1000;
        events.add(new RemoteLogSegmentMetadata(id, start, end, clock - 60_000, broker, clock, size,
            Optional.empty(), RemoteLogSegmentState.COPY_SEGMENT_STARTED, epochs));
        told.add(id.topicIdPartition() + " segment " + id.id() + " [" + start + ", " + end + "] COPY_SEGMENT_STARTED by broker " + broker);
    }

    private void update(RemoteLogSegmentId id, RemoteLogSegmentState state, int broker, byte[] custom) {
        clock += 1000;
        Optional<RemoteLogSegmentMetadata.CustomMetadata> c =
            custom == null ? Optional.empty() : Optional.of(new RemoteLogSegmentMetadata.CustomMetadata(custom));
        events.add(new RemoteLogSegmentMetadataUpdate(id, clock, c, state, broker));
        told.add(id.topicIdPartition() + " segment " + id.id() + " " + state + " by broker " + broker
            + (custom == null ? "" : " with custom metadata"));
    }

    private void partition(TopicIdPartition tp, RemotePartitionDeleteState state, int broker) {
        clock += 1000;
        events.add(new RemotePartitionDeleteMetadata(tp, state, clock, broker));
        told.add(tp + " " + state + " by broker " + broker);
    }

    private static Map<Integer, Long> epochs(long... pairs) {
        Map<Integer, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) m.put((int) pairs[i], pairs[i + 1]);
        return m;
    }

    private void story() {
        TopicIdPartition orders0 = tp("p0G5fUJtSTSKtB9ciVR1GA", "orders", 0);
        TopicIdPartition orders1 = tp("p0G5fUJtSTSKtB9ciVR1GA", "orders", 1);
        TopicIdPartition clicks0 = tp("c1Ick5AAQ0uYyBQvVTbZkg", "clicks", 0);
        RemoteLogSegmentId s1 = id(orders0, "AAAAAAAAQACAAAAAAAAAAQ");
        RemoteLogSegmentId s2 = id(orders0, "AAAAAAAAQACAAAAAAAAAAg");
        RemoteLogSegmentId s3 = id(orders0, "AAAAAAAAQACAAAAAAAAAAw");
        RemoteLogSegmentId s4 = id(orders1, "AAAAAAAAQACAAAAAAAAABA");
        RemoteLogSegmentId s5 = id(orders1, "AAAAAAAAQACAAAAAAAAABQ");
        RemoteLogSegmentId s6 = id(clicks0, "AAAAAAAAQACAAAAAAAAABg");
        byte[] key = "bucket/orders-0/00000000000000000000".getBytes(StandardCharsets.UTF_8);

        copyStarted(s1, 0, 99, 1, 10_240, epochs(0, 0));
        update(s1, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 1, key);
        copyStarted(s4, 0, 49, 2, 5_120, epochs(2, 0));
        copyStarted(s2, 100, 249, 1, 15_360, epochs(0, 100, 1, 180));
        update(s4, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 2, null);
        update(s2, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 1, null);
        copyStarted(s6, 0, 9, 3, 1_024, epochs(0, 0));
        update(s6, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 3, null);
        copyStarted(s3, 250, 399, 1, 15_000, epochs(1, 250, 3, 300));
        update(s3, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 1, null);
        update(s1, RemoteLogSegmentState.DELETE_SEGMENT_STARTED, 1, null);
        update(s1, RemoteLogSegmentState.DELETE_SEGMENT_FINISHED, 1, null);
        // An upload that never finishes: broker 2 died mid-copy.
        copyStarted(s5, 50, 120, 2, 7_000, epochs(2, 50, 4, 100));
        // A topic deleted: its partition marked, its segment deleted, the partition finished.
        partition(clicks0, RemotePartitionDeleteState.DELETE_PARTITION_MARKED, 3);
        partition(clicks0, RemotePartitionDeleteState.DELETE_PARTITION_STARTED, 3);
        update(s6, RemoteLogSegmentState.DELETE_SEGMENT_STARTED, 3, null);
        update(s6, RemoteLogSegmentState.DELETE_SEGMENT_FINISHED, 3, null);
        partition(clicks0, RemotePartitionDeleteState.DELETE_PARTITION_FINISHED, 3);
        // A delete that never finishes (retention removing orders-0's second segment).
        update(s2, RemoteLogSegmentState.DELETE_SEGMENT_STARTED, 1, null);
        // A new leader re-uploads an overlapping, longer segment: the cache
        // lets it replace the epoch's later segment it covers (s8), not the
        // earlier one (s7).
        TopicIdPartition payments0 = tp("cGF5bWVudHMtdG9waWMtaQ", "payments", 0);
        RemoteLogSegmentId s7 = id(payments0, "AAAAAAAAQACAAAAAAAAABw");
        RemoteLogSegmentId s8 = id(payments0, "AAAAAAAAQACAAAAAAAAACA");
        RemoteLogSegmentId s9 = id(payments0, "AAAAAAAAQACAAAAAAAAACQ");
        copyStarted(s7, 0, 99, 4, 8_000, epochs(5, 0));
        update(s7, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 4, null);
        copyStarted(s8, 100, 199, 4, 8_000, epochs(5, 100));
        update(s8, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 4, null);
        copyStarted(s9, 50, 250, 5, 16_000, epochs(5, 50, 6, 200));
        update(s9, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 5, null);
    }

    private void run() throws Exception {
        story();
        File caseDir = new File(lab.out, "internal-remote-log-metadata");
        File partDir = new File(caseDir, "__remote_log_metadata-0");
        List<MemoryRecords> batches = new ArrayList<>();
        List<String> written = new ArrayList<>();
        long offset = 0;
        // One record a batch, as TopicBasedRemoteLogMetadataManager's producer sends them (key null).
        for (RemoteLogMetadata m : events) {
            List<SimpleRecord> one = new ArrayList<>();
            one.add(new SimpleRecord(m.eventTimestampMs(), null, serde.serialize(m)));
            batches.add(KsegLab.batch(offset++, one));
            written.add(m.getClass().getSimpleName());
        }
        File log = new File(partDir, String.format("%020d.log", 0));
        KsegLab.writeLog(log, batches);

        ObjectNode view = lab.header("internal-remote-log-metadata", "__remote_log_metadata");
        view.put("decoding", "data records: {type: MetadataRecordType.fromId(apiKey).toString(), version, data: "
            + "<Record>JsonConverter.write} after the serde's BytesApiMessageSerde.deserialize; kafka: the serde's "
            + "deserialize(...).toString(); key null");
        view.set("recordsWritten", KsegLab.array(told));
        ObjectNode partition = view.putObject("partition");
        partition.put("dir", partDir.getName());
        ObjectNode seg = partition.putArray("segments").addObject();
        seg.put("baseOffset", 0);
        seg.set("log", LogView.read(log, new Reader()));
        view.put("logEndOffset", offset);
        view.set("remoteLogMetadataCache", cacheView());
        StringBuilder readme = new StringBuilder();
        readme.append("internal-remote-log-metadata (release ").append(lab.release).append(", commit ").append(lab.commit).append(")\n\n");
        readme.append("Tiered storage's __remote_log_metadata-0, written by the lab harness (lab/ in kseg) with this release's own\n");
        readme.append("classes: each event a RemoteLogSegmentMetadata, RemoteLogSegmentMetadataUpdate or RemotePartitionDeleteMetadata\n");
        readme.append("serialized by RemoteLogMetadataSerde, one record a batch (key null, timestamp the event's), appended by FileRecords.\n");
        readme.append("A coherent story: orders-0 (segment 1 uploaded and deleted, 2 uploaded and its delete never finishing,\n");
        readme.append("3 uploaded), orders-1 (4 uploaded, 5's upload never finishing), clicks-0 (6 uploaded, then the topic deleted),\n");
        readme.append("payments-0 (7 and 8 uploaded, then 9, longer, overlapping both, uploaded by a new leader).\n\n");
        readme.append("kafka-view.json: Kafka's reading (FileRecords.batches, the serde's deserialize and toString, the generated JSON\n");
        readme.append("converters) and remoteLogMetadataCache: per partition, what RemoteLogMetadataCache holds after the segment\n");
        readme.append("events were replayed into it (addCopyInProgressSegment, updateRemoteLogSegmentMetadata) in log order:\n");
        readme.append("listAllRemoteLogSegments and highestOffsetForEpoch of every epoch the partition's segments name;\n");
        readme.append("remoteLogSegmentMetadata(epoch, offset) of those epochs for every offset from -1 to one past the last segment's end,\n");
        readme.append("as runs [first offset, last offset, segment id or null]; and metadataPartition: the __remote_log_metadata\n");
        readme.append("partition RemoteLogMetadataTopicPartitioner gives the partition for 1, 7 and 50 metadata partitions.\n\n");
        readme.append("Records in log order:\n");
        for (int i = 0; i < told.size(); i++) readme.append("  ").append(i).append(": ").append(told.get(i)).append('\n');
        lab.finish(caseDir, view, readme.toString());
    }

    private static Method method(Class<?> c, String name, Class<?>... params) throws Exception {
        Method m = c.getDeclaredMethod(name, params);
        m.setAccessible(true);
        return m;
    }

    /** Every partition's RemoteLogMetadataCache after the segment events, by Kafka's own cache. */
    private ObjectNode cacheView() throws Exception {
        Map<String, RemoteLogMetadataCache> caches = new TreeMap<>();
        Map<String, TreeSet<Integer>> epochsSeen = new TreeMap<>();
        Map<String, Long> maxEnd = new TreeMap<>();
        Map<String, TopicIdPartition> topicIdPartitions = new TreeMap<>();
        Method add = method(RemoteLogMetadataCache.class, "addCopyInProgressSegment", RemoteLogSegmentMetadata.class);
        Method upd = method(RemoteLogMetadataCache.class, "updateRemoteLogSegmentMetadata", RemoteLogSegmentMetadataUpdate.class);
        Method all = method(RemoteLogMetadataCache.class, "listAllRemoteLogSegments");
        Method highest = method(RemoteLogMetadataCache.class, "highestOffsetForEpoch", int.class);
        for (RemoteLogMetadata m : events) {
            if (m instanceof RemoteLogSegmentMetadata) {
                RemoteLogSegmentMetadata s = (RemoteLogSegmentMetadata) m;
                String k = s.topicIdPartition().toString();
                caches.computeIfAbsent(k, x -> new RemoteLogMetadataCache());
                epochsSeen.computeIfAbsent(k, x -> new TreeSet<>()).addAll(s.segmentLeaderEpochs().keySet());
                maxEnd.merge(k, s.endOffset(), Math::max);
                topicIdPartitions.put(k, s.topicIdPartition());
                add.invoke(caches.get(k), s);
            } else if (m instanceof RemoteLogSegmentMetadataUpdate) {
                RemoteLogSegmentMetadataUpdate u = (RemoteLogSegmentMetadataUpdate) m;
                upd.invoke(caches.get(u.remoteLogSegmentId().topicIdPartition().toString()), u);
            }
        }
        ObjectNode out = KsegLab.JSON.createObjectNode();
        for (Map.Entry<String, RemoteLogMetadataCache> e : caches.entrySet()) {
            ObjectNode p = out.putObject(e.getKey());
            ArrayNode segs = p.putArray("listAllRemoteLogSegments");
            Iterator<?> it = (Iterator<?>) all.invoke(e.getValue());
            while (it.hasNext()) {
                RemoteLogSegmentMetadata s = (RemoteLogSegmentMetadata) it.next();
                ObjectNode o = segs.addObject();
                o.put("id", s.remoteLogSegmentId().id().toString());
                o.put("startOffset", s.startOffset());
                o.put("endOffset", s.endOffset());
                o.put("state", s.state().name());
                o.put("brokerId", s.brokerId());
                o.put("eventTimestampMs", s.eventTimestampMs());
                o.put("maxTimestampMs", s.maxTimestampMs());
                o.put("segmentSizeInBytes", s.segmentSizeInBytes());
                ObjectNode ep = o.putObject("segmentLeaderEpochs");
                for (Map.Entry<Integer, Long> x : s.segmentLeaderEpochs().entrySet()) ep.put(String.valueOf(x.getKey()), x.getValue());
                if (s.customMetadata().isPresent()) {
                    o.put("customMetadata", java.util.Base64.getEncoder().encodeToString(s.customMetadata().get().value()));
                } else {
                    o.putNull("customMetadata");
                }
            }
            ObjectNode h = p.putObject("highestOffsetForEpoch");
            for (int epoch : epochsSeen.get(e.getKey())) {
                Optional<?> v = (Optional<?>) highest.invoke(e.getValue(), epoch);
                if (v.isPresent()) h.put(String.valueOf(epoch), (Long) v.get());
                else h.putNull(String.valueOf(epoch));
            }
            p.set("remoteLogSegmentMetadata", lookups(e.getValue(), epochsSeen.get(e.getKey()), maxEnd.get(e.getKey())));
            ObjectNode placed = p.putObject("metadataPartition");
            TopicIdPartition tip = topicIdPartitions.get(e.getKey());
            for (int n : new int[] {1, 7, 50}) {
                placed.put(String.valueOf(n), new RemoteLogMetadataTopicPartitioner(n).metadataPartition(tip));
            }
        }
        return out;
    }

    private static void run(ArrayNode runs, long from, long to, String id) {
        ArrayNode run = runs.addArray();
        run.add(from);
        run.add(to);
        if (id == null) run.addNull(); else run.add(id);
    }

    /**
     * The cache's remoteLogSegmentMetadata(epoch, offset) for every epoch and
     * every offset from -1 to one past the partition's last segment end, as
     * runs: [first offset, last offset, segment id or null].
     */
    private static ObjectNode lookups(RemoteLogMetadataCache cache, TreeSet<Integer> epochs, long maxEnd) throws Exception {
        Method lookup = method(RemoteLogMetadataCache.class, "remoteLogSegmentMetadata", int.class, long.class);
        ObjectNode out = KsegLab.JSON.createObjectNode();
        for (int epoch : epochs) {
            ArrayNode runs = out.putArray(String.valueOf(epoch));
            String current = null;
            long from = -1;
            for (long offset = -1; offset <= maxEnd + 1; offset++) {
                Optional<?> found = (Optional<?>) lookup.invoke(cache, epoch, offset);
                String id = found.isPresent() ? ((RemoteLogSegmentMetadata) found.get()).remoteLogSegmentId().id().toString() : null;
                if (offset > -1 && !java.util.Objects.equals(id, current)) {
                    run(runs, from, offset - 1, current);
                    from = offset;
                }
                current = id;
            }
            run(runs, from, maxEnd + 1, current);
        }
        return out;
    }

    /** Kafka's reading of a record: the serde's frame decoding, the generated converters, deserialize's toString. */
    private final class Reader implements LogView.Decoder {
        @Override
        public JsonNode key(ByteBuffer key, ByteBuffer value) {
            return key == null ? null : KsegLab.JSON.getNodeFactory().textNode(KsegLab.base64(key));
        }

        @Override
        public JsonNode value(ByteBuffer key, ByteBuffer value) throws Exception {
            if (value == null) return null;
            ByteBuffer d = value.duplicate();
            byte[] bytes = new byte[d.remaining()];
            d.get(bytes);
            Field f = RemoteLogMetadataSerde.class.getDeclaredField("bytesApiMessageSerde");
            f.setAccessible(true);
            Object frames = f.get(serde);
            ApiMessageAndVersion r = (ApiMessageAndVersion) frames.getClass().getMethod("deserialize", byte[].class).invoke(frames, bytes);
            ObjectNode o = KsegLab.JSON.createObjectNode();
            o.put("base64", KsegLab.base64(value));
            Object type = Class.forName(GEN + ".MetadataRecordType").getMethod("fromId", short.class).invoke(null, r.message().apiKey());
            o.put("type", type.toString());
            o.put("version", r.version());
            o.set("data", KsegLab.converterJson(r.message(), r.version()));
            o.put("kafka", serde.deserialize(bytes).toString());
            return o;
        }
    }
}
