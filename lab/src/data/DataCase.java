import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.OffsetIndex;
import org.apache.kafka.storage.internals.log.OffsetPosition;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.TimeIndex;
import org.apache.kafka.storage.internals.log.TimestampOffset;

import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * A data partition, acme.orders-0: idempotent producers' batches in two
 * segments, written by FileRecords; then, as a broker loading an unclean
 * log does, each segment recovered by LogSegment.recover, which rebuilds
 * its .index and .timeindex with Kafka's own rule and feeds the
 * ProducerStateManager, whose snapshot is taken at each segment's end.
 * The release's LogSegment is named by reflection: Java (storage) from 3.7,
 * Scala (core's kafka.log.LogSegment, compiled by build.sh) in 3.6.
 */
public final class DataCase {
    private static final long[] PRODUCERS = {4001, 4002, 4003};

    private DataCase() { }

    /** Writes the case under the lab's output directory. */
    public static void write(KsegLab lab) throws Exception {
        File caseDir = new File(lab.out, "data-idempotent");
        File dir = new File(caseDir, "acme.orders-0");
        dir.mkdirs();
        Random random = new Random(44);
        int[] sequence = new int[PRODUCERS.length];
        short[] epoch = new short[PRODUCERS.length];
        long offset = 0;
        long[] bases = {0, 0};
        List<List<MemoryRecords>> segments = List.of(new ArrayList<>(), new ArrayList<>());
        for (int b = 0; b < 80; b++) {
            int seg = b < 45 ? 0 : 1;
            if (b == 45) bases[1] = offset;
            int p = random.nextInt(PRODUCERS.length);
            if (b == 60 && p == 0) {
                epoch[0]++;
                sequence[0] = 0;
            }
            int n = 1 + random.nextInt(4);
            SimpleRecord[] records = new SimpleRecord[n];
            for (int i = 0; i < n; i++) {
                String key = "order-" + random.nextInt(500);
                String value = "{\"order\":" + (offset + i) + ",\"amount\":" + random.nextInt(100000) + ",\"note\":\""
                    + "x".repeat(random.nextInt(120)) + "\"}";
                records[i] = new SimpleRecord(KsegLab.BASE_TIME + (offset + i) * 53 - (i == 1 ? 7000 : 0),
                    key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
            }
            segments.get(seg).add(idempotent(offset, PRODUCERS[p], epoch[p], sequence[p], records));
            sequence[p] += n;
            offset += n;
        }
        Map<String, String> props = Map.of("index.interval.bytes", "1024", "segment.bytes", "1048576");
        LogConfig config = new LogConfig(props);
        TopicPartition tp = new TopicPartition("acme.orders", 0);
        ProducerStateManager psm = new ProducerStateManager(tp, dir, 900000,
            new ProducerStateManagerConfig(86400000, false), Time.SYSTEM);
        KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        LeaderEpochFileCache cache = epochCache(dir, tp, scheduler);
        long[] ends = {bases[1], offset};
        for (int s = 0; s < 2; s++) {
            File log = new File(dir, String.format("%020d.log", bases[s]));
            KsegLab.writeLog(log, segments.get(s));
            Object segment = open(dir, bases[s], config);
            recover(segment, psm, cache);
            psm.updateMapEndOffset(ends[s]);
            psm.takeSnapshot();
            if (s == 0) call(segment, "onBecomeInactiveSegment");
            call(segment, "close");
        }
        scheduler.shutdown();

        ObjectNode view = lab.header("data-idempotent", "acme.orders");
        view.put("decoding", "raw keys and values (base64); indexes by OffsetIndex/TimeIndex.entry; producer snapshots by "
            + "ProducerStateManager.readSnapshot");
        ObjectNode partition = view.putObject("partition");
        partition.put("dir", dir.getName());
        ArrayNode segs = partition.putArray("segments");
        for (int s = 0; s < 2; s++) {
            ObjectNode seg = segs.addObject();
            seg.put("baseOffset", bases[s]);
            seg.set("log", LogView.read(new File(dir, String.format("%020d.log", bases[s])), new Raw()));
            seg.set("index", offsetIndex(new File(dir, String.format("%020d.index", bases[s])), bases[s]));
            seg.set("timeindex", timeIndex(new File(dir, String.format("%020d.timeindex", bases[s])), bases[s]));
        }
        ArrayNode snaps = partition.putArray("producerSnapshots");
        for (long end : ends) {
            File f = new File(dir, String.format("%020d.snapshot", end));
            ObjectNode o = snaps.addObject();
            o.put("file", f.getName());
            o.put("offset", end);
            ArrayNode entries = o.putArray("entries");
            for (ProducerStateEntry e : ProducerStateManager.readSnapshot(f)) entries.add(entry(e));
        }
        view.put("logEndOffset", offset);
        lab.finish(caseDir, view, "data-idempotent (release " + lab.release + ", commit " + lab.commit + ")\n\n"
            + "acme.orders-0: 80 batches of 1-4 records from three idempotent producers (one epoch bump resetting its\n"
            + "sequence), no compression, in two segments (base offsets " + bases[0] + " and " + bases[1] + "), written by\n"
            + "MemoryRecords.withIdempotentRecords and FileRecords; then each segment recovered by this release's\n"
            + "LogSegment.recover (rebuilding .index and .timeindex, index.interval.bytes 1024, and feeding the\n"
            + "ProducerStateManager), a producer snapshot taken at each segment's end, the first segment made inactive\n"
            + "(onBecomeInactiveSegment) and both closed, as a broker does. Log end offset " + offset + ".\n\n"
            + "kafka-view.json: FileRecords.batches and records, OffsetIndex/TimeIndex entries, ProducerStateManager.readSnapshot.\n");
    }

    private static MemoryRecords idempotent(long offset, long pid, short epoch, int seq, SimpleRecord[] records) throws Exception {
        for (Method m : MemoryRecords.class.getMethods()) {
            Class<?>[] p = m.getParameterTypes();
            if (m.getName().equals("withIdempotentRecords") && p.length == 7 && p[0] == long.class) {
                return (MemoryRecords) m.invoke(null, offset, KsegLab.noneCompression(p[1])[0], pid, epoch, seq, 0, records);
            }
        }
        throw new IllegalStateException("no MemoryRecords.withIdempotentRecords(long, compression, long, short, int, int, ...)");
    }

    /** The partition's leader epoch cache over its leader-epoch-checkpoint (a scheduler from 3.8 on). */
    private static LeaderEpochFileCache epochCache(File dir, TopicPartition tp, KafkaScheduler scheduler) throws Exception {
        LeaderEpochCheckpointFile file = new LeaderEpochCheckpointFile(new File(dir, "leader-epoch-checkpoint"),
            new LogDirFailureChannel(1));
        for (Constructor<?> c : LeaderEpochFileCache.class.getConstructors()) {
            if (c.getParameterCount() == 3) return (LeaderEpochFileCache) c.newInstance(tp, file, scheduler);
            if (c.getParameterCount() == 2 && c.getParameterTypes()[1].isInstance(file)) {
                return (LeaderEpochFileCache) c.newInstance(tp, file);
            }
        }
        throw new IllegalStateException("no LeaderEpochFileCache constructor");
    }

    /** The release's LogSegment: Java in storage from 3.7, Scala in core before. */
    private static Class<?> segmentClass() throws ClassNotFoundException {
        try {
            return Class.forName("org.apache.kafka.storage.internals.log.LogSegment");
        } catch (ClassNotFoundException e) {
            return Class.forName("kafka.log.LogSegment");
        }
    }

    /** LogSegment.open(dir, base, config, time, fileAlreadyExists, initFileSize, preallocate, suffix): the Scala companion's static forwarder in 3.6. */
    private static Object open(File dir, long base, LogConfig config) throws Exception {
        Method m = segmentClass().getMethod("open", File.class, long.class, LogConfig.class, Time.class, boolean.class,
            int.class, boolean.class, String.class);
        return unwrap(() -> m.invoke(null, dir, base, config, Time.SYSTEM, true, 0, false, ""));
    }

    /** LogSegment.recover(psm, cache): the cache in an Optional from 3.7 to 3.9, a scala.Option in 3.6, bare from 4.0. */
    private static void recover(Object segment, ProducerStateManager psm, LeaderEpochFileCache cache) throws Exception {
        for (Method m : segment.getClass().getMethods()) {
            if (m.getName().equals("recover") && m.getParameterCount() == 2) {
                Class<?> type = m.getParameterTypes()[1];
                Object arg = type == Optional.class ? Optional.of(cache)
                    : type.getName().equals("scala.Option") ? type.getMethod("apply", Object.class).invoke(null, cache)
                    : cache;
                unwrap(() -> m.invoke(segment, psm, arg));
                return;
            }
        }
        throw new IllegalStateException("no LogSegment.recover");
    }

    /** A LogSegment method without arguments. */
    private static void call(Object segment, String name) throws Exception {
        Method m = segment.getClass().getMethod(name);
        unwrap(() -> m.invoke(segment));
    }

    private interface Call {
        Object run() throws Exception;
    }

    /** Runs a reflective call, rethrowing what the method threw. */
    private static Object unwrap(Call call) throws Exception {
        try {
            return call.run();
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception) throw (Exception) e.getCause();
            throw e;
        }
    }

    private static ObjectNode offsetIndex(File f, long base) throws Exception {
        ObjectNode o = KsegLab.JSON.createObjectNode();
        o.put("file", f.getName());
        o.put("fileSize", f.length());
        ArrayNode entries = o.putArray("entries");
        OffsetIndex index = new OffsetIndex(f, base, -1, false);
        for (int i = 0; i < index.entries(); i++) {
            OffsetPosition e = index.entry(i);
            ObjectNode n = entries.addObject();
            n.put("offset", num(e, "offset"));
            n.put("position", num(e, "position"));
        }
        index.close();
        return o;
    }

    private static ObjectNode timeIndex(File f, long base) throws Exception {
        ObjectNode o = KsegLab.JSON.createObjectNode();
        o.put("file", f.getName());
        o.put("fileSize", f.length());
        ArrayNode entries = o.putArray("entries");
        TimeIndex index = new TimeIndex(f, base, -1, false);
        for (int i = 0; i < index.entries(); i++) {
            TimestampOffset e = index.entry(i);
            ObjectNode n = entries.addObject();
            n.put("timestamp", num(e, "timestamp"));
            n.put("offset", num(e, "offset"));
        }
        index.close();
        return o;
    }

    /** A field of an index entry: a public field before 4.2, a record accessor from 4.2. */
    private static long num(Object entry, String name) throws Exception {
        try {
            return ((Number) entry.getClass().getMethod(name).invoke(entry)).longValue();
        } catch (NoSuchMethodException e) {
            return ((Number) entry.getClass().getField(name).get(entry)).longValue();
        }
    }

    private static ObjectNode entry(ProducerStateEntry e) {
        ObjectNode o = KsegLab.JSON.createObjectNode();
        o.put("producerId", e.producerId());
        o.put("producerEpoch", e.producerEpoch());
        o.put("coordinatorEpoch", e.coordinatorEpoch());
        o.put("lastTimestamp", e.lastTimestamp());
        o.put("firstSeq", e.firstSeq());
        o.put("lastSeq", e.lastSeq());
        o.put("lastDataOffset", e.lastDataOffset());
        if (e.currentTxnFirstOffset().isPresent()) {
            o.put("currentTxnFirstOffset", e.currentTxnFirstOffset().getAsLong());
        } else {
            o.putNull("currentTxnFirstOffset");
        }
        return o;
    }

    /** Data records: their bytes only. */
    private static final class Raw implements LogView.Decoder {
        @Override
        public JsonNode key(ByteBuffer key, ByteBuffer value) {
            return key == null ? null : KsegLab.JSON.createObjectNode().put("base64", KsegLab.base64(key));
        }

        @Override
        public JsonNode value(ByteBuffer key, ByteBuffer value) {
            return value == null ? null : KsegLab.JSON.createObjectNode().put("base64", KsegLab.base64(value));
        }
    }
}
