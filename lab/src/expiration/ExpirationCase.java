import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.log.remote.metadata.storage.RemotePartitionMetadataStore;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogManager;
import org.apache.kafka.server.log.remote.storage.RemoteLogManagerConfig;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadataManager;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogOffsetsListener;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The lab's remote-retention cases: Kafka 4.2's own RemoteLogManager
 * expiration task (RLMExpirationTask.cleanupExpiredRemoteLogSegments) run
 * over a real UnifiedLog with remote storage enabled, against the lab's
 * RemoteStorageManager (which records deleteLogSegmentData) and the lab's
 * RemoteLogMetadataManager (Kafka's RemotePartitionMetadataStore and
 * RemoteLogMetadataCache, every metadata event also kept in order to be
 * written, serialized by RemoteLogMetadataSerde, as __remote_log_metadata-0).
 * Each case directory holds the log dir as it stood before the pass, and
 * expiration-view.json what Kafka's objects reported before and after it.
 *
 * Usage: ExpirationCase <out dir> <work dir> <release> <commit>
 */
public final class ExpirationCase {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    static final String RLM = "org.apache.kafka.server.log.remote.storage.RemoteLogManager";
    /** The clock at every case's expiration pass: 2025-12-01T00:00:00Z. */
    static final long NOW = 1764547200000L;
    static final long MINUTE = 60_000L;
    static final long HOUR = 60 * MINUTE;
    static final long DAY = 24 * HOUR;
    static final int THIS_BROKER = 3;

    /** The metadata store and recorder of the case being built (the plugins are made by class name). */
    static Recorder current;

    /** The stderr lines slf4j-simple wrote while capturing. */
    static final List<String> captured = new ArrayList<>();
    static volatile boolean capturing = false;

    public static void main(String[] args) throws Exception {
        File out = new File(args[0]);
        File work = new File(args[1]);
        String release = args[2];
        String commit = args[3];
        PrintStream err = System.err;
        System.setErr(new PrintStream(new LineTee(err), true, StandardCharsets.UTF_8));
        Cases cases = new Cases(out, work, release, commit);
        cases.time();
        cases.withVariants(cases::size, -1, 1);
        cases.withVariants(cases::timeAndSize, -1, 11);
        cases.logStart();
        cases.deleteRetry();
        cases.unclean();
        cases.nothing();
        cases.withVariants(cases::epochs, -1, 1);
        cases.withVariants(cases::oneRecordSegment, -1, 1);
        System.setErr(err);
        StringBuilder sb = new StringBuilder();
        sb.append("Remote log retention decided by Kafka ").append(release).append("'s own RemoteLogManager (commit ").append(commit).append(")\n\n");
        sb.append("Each directory is one case: a broker's log dir as it stood before one run of the remote-log expiration task\n");
        sb.append("(RLMExpirationTask.cleanupExpiredRemoteLogSegments) at 2025-12-01T00:00:00Z, and expiration-view.json with what\n");
        sb.append("Kafka's objects reported before and after it. Written by kseg's lab/expiration.sh (lab/src/expiration/ExpirationCase.java).\n\n");
        for (String line : Cases.summary) sb.append(line).append('\n');
        Files.write(new File(out, "README.txt").toPath(), sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    // ---- the plugins RemoteLogManager instantiates by class name ----

    /** Everything the metadata manager and the storage manager saw, in order. */
    static final class Recorder {
        final RemotePartitionMetadataStore store = new RemotePartitionMetadataStore();
        final List<RemoteLogMetadata> events = new ArrayList<>();
        final List<RemoteLogSegmentMetadata> deletes = new ArrayList<>();
        final Set<Uuid> failDeletes = new HashSet<>();
        int passStart = -1;

        void publish(RemoteLogMetadata m) {
            events.add(m);
            // As TopicBasedRemoteLogMetadataManager's consumer applies a consumed record.
            store.handleRemoteLogMetadata(m);
        }
    }

    /** The lab's RemoteLogMetadataManager: each event published is applied at once, as a caught-up consumer would. */
    public static final class LabMetadata implements RemoteLogMetadataManager {
        private final Recorder r = current;

        @Override public void configure(Map<String, ?> configs) { }
        @Override public void close() { }

        @Override
        public CompletableFuture<Void> addRemoteLogSegmentMetadata(RemoteLogSegmentMetadata m) {
            r.publish(m);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> updateRemoteLogSegmentMetadata(RemoteLogSegmentMetadataUpdate u) {
            r.publish(u);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public Optional<RemoteLogSegmentMetadata> remoteLogSegmentMetadata(TopicIdPartition tp, int epoch, long offset)
                throws RemoteStorageException {
            return invoke("remoteLogSegmentMetadata", new Class<?>[] {TopicIdPartition.class, long.class, int.class}, tp, offset, epoch);
        }

        @Override
        public Optional<Long> highestOffsetForEpoch(TopicIdPartition tp, int epoch) throws RemoteStorageException {
            return invoke("highestLogOffset", new Class<?>[] {TopicIdPartition.class, int.class}, tp, epoch);
        }

        @Override
        public CompletableFuture<Void> putRemotePartitionDeleteMetadata(RemotePartitionDeleteMetadata m) {
            r.publish(m);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public Iterator<RemoteLogSegmentMetadata> listRemoteLogSegments(TopicIdPartition tp) throws RemoteStorageException {
            return invoke("listRemoteLogSegments", new Class<?>[] {TopicIdPartition.class}, tp);
        }

        @Override
        public Iterator<RemoteLogSegmentMetadata> listRemoteLogSegments(TopicIdPartition tp, int epoch) throws RemoteStorageException {
            return invoke("listRemoteLogSegments", new Class<?>[] {TopicIdPartition.class, int.class}, tp, epoch);
        }

        @Override public void onPartitionLeadershipChanges(Set<TopicIdPartition> leaders, Set<TopicIdPartition> followers) { }
        @Override public void onStopPartitions(Set<TopicIdPartition> partitions) { }

        @Override
        public long remoteLogSize(TopicIdPartition tp, int epoch) throws RemoteStorageException {
            long size = 0;
            Iterator<RemoteLogSegmentMetadata> it = listRemoteLogSegments(tp, epoch);
            while (it.hasNext()) size += it.next().segmentSizeInBytes();
            return size;
        }

        @SuppressWarnings("unchecked")
        private <T> T invoke(String name, Class<?>[] types, Object... args) throws RemoteStorageException {
            try {
                Method m = RemotePartitionMetadataStore.class.getDeclaredMethod(name, types);
                m.setAccessible(true);
                return (T) m.invoke(r.store, args);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RemoteStorageException) throw (RemoteStorageException) e.getCause();
                throw new IllegalStateException(e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** The lab's RemoteStorageManager: records deletions (failing those it is told to fail), serves nothing. */
    public static final class LabStorage implements RemoteStorageManager {
        private final Recorder r = current;

        @Override public void configure(Map<String, ?> configs) { }
        @Override public void close() { }

        @Override
        public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata m, LogSegmentData d) {
            return Optional.empty();
        }

        @Override
        public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int start) throws RemoteStorageException {
            throw new RemoteStorageException("the lab's storage serves no reads");
        }

        @Override
        public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int start, int end) throws RemoteStorageException {
            throw new RemoteStorageException("the lab's storage serves no reads");
        }

        @Override
        public InputStream fetchIndex(RemoteLogSegmentMetadata m, IndexType type) throws RemoteStorageException {
            throw new RemoteStorageException("the lab's storage serves no reads");
        }

        @Override
        public void deleteLogSegmentData(RemoteLogSegmentMetadata m) throws RemoteStorageException {
            r.deletes.add(m);
            if (r.failDeletes.remove(m.remoteLogSegmentId().id())) {
                throw new RemoteStorageException("the object store did not answer (lab)");
            }
        }
    }

    // ---- a settable clock and a scheduler that runs one-shot tasks at once ----

    /** The lab's clock: moves only when told to. */
    static final class LabTime implements Time {
        long ms;

        @Override public long milliseconds() { return ms; }
        @Override public long nanoseconds() { return ms * 1_000_000L; }
        @Override public void sleep(long d) { ms += d; }
        @Override public void waitObject(Object obj, java.util.function.Supplier<Boolean> condition, long deadlineMs) {
            if (!condition.get()) throw new IllegalStateException("the lab's clock never waits");
        }
    }

    /** Runs a one-shot task at once, in the caller's thread (file deletion, checkpoint flushes); drops periodic ones. */
    static final class InlineScheduler implements Scheduler {
        @Override public void startup() { }
        @Override public void shutdown() { }
        @Override public void resizeThreadPool(int n) { }

        @Override
        public ScheduledFuture<?> schedule(String name, Runnable task, long delayMs, long periodMs) {
            if (periodMs < 0) task.run();
            return new Done();
        }

        private static final class Done extends CompletableFuture<Object> implements ScheduledFuture<Object> {
            Done() { complete(null); }
            @Override public long getDelay(TimeUnit unit) { return 0; }
            @Override public int compareTo(Delayed o) { return 0; }
        }
    }

    /** Passes stderr through, keeping each line written while capturing. */
    static final class LineTee extends OutputStream {
        private final PrintStream down;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineTee(PrintStream down) { this.down = down; }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                String s = line.toString(StandardCharsets.UTF_8);
                line.reset();
                if (capturing) captured.add(s);
                down.println(s);
            } else {
                line.write(b);
            }
        }
    }

    // ---- one case ----

    /** One partition's history and its expiration pass. */
    static final class Sim {
        final String name;
        final String topic;
        final TopicIdPartition tip;
        final File caseDir;
        final File work;
        final LabTime time = new LabTime();
        final Recorder rec = new Recorder();
        final Random random;
        final Map<String, String> config = new LinkedHashMap<>();
        final RemoteLogManager rlm;
        final List<String> story = new ArrayList<>();
        final Map<Uuid, String> labels = new LinkedHashMap<>();
        final List<Long> remoteLogStartOffsetCalls = new ArrayList<>();
        final int caseNo;
        UnifiedLog log;
        File logDir;
        int nextId = 1;
        long beforeLogStartOffset;
        ObjectNode sizeBefore;
        final Cases cases;

        Sim(Cases cases, int caseNo, String name, String topic, long startMs, Map<String, String> topicConfig) throws Exception {
            this.name = name;
            this.topic = topic;
            this.caseNo = caseNo;
            this.random = new Random(4200 + caseNo);
            this.tip = new TopicIdPartition(new Uuid(0x6b73656700004000L | ((long) caseNo << 16), 0x8000000000000000L | caseNo),
                new TopicPartition(topic, 0));
            this.cases = cases;
            this.caseDir = cases.variant == 0 ? new File(cases.out, name) : new File(cases.work, "variants/" + name + "/" + cases.variant);
            this.work = new File(cases.work, name);
            deleteTree(caseDir.toPath());
            deleteTree(work.toPath());
            caseDir.mkdirs();
            config.put("cleanup.policy", "delete");
            config.put("remote.storage.enable", "true");
            config.put("segment.bytes", "1073741824");
            config.put("index.interval.bytes", "4096");
            config.put("file.delete.delay.ms", "0");
            config.putAll(topicConfig);
            time.ms = startMs;
            rec.store.maybeLoadPartition(tip);
            rec.store.markInitialized(tip);
            current = rec;
            Map<String, Object> rlmProps = new LinkedHashMap<>();
            rlmProps.put("remote.log.storage.system.enable", "true");
            rlmProps.put("remote.log.storage.manager.class.name", LabStorage.class.getName());
            rlmProps.put("remote.log.metadata.manager.class.name", LabMetadata.class.getName());
            RemoteLogManagerConfig rlmConfig = new RemoteLogManagerConfig(new AbstractConfig(RemoteLogManagerConfig.configDef(), rlmProps));
            File rlmDir = new File(work, "rlm");
            rlmDir.mkdirs();
            rlm = new RemoteLogManager(rlmConfig, THIS_BROKER, rlmDir.getPath(), "lab-cluster", time,
                tp -> Optional.ofNullable(log),
                (tp, offset) -> {
                    remoteLogStartOffsetCalls.add(offset);
                    // As BrokerServer's callback does.
                    log.updateLogStartOffsetFromRemoteTier(offset);
                },
                new BrokerTopicStats(true), new Metrics(), Optional.empty());
            logDir = new File(work, "broker-" + THIS_BROKER);
            log = open(logDir, 0L, 0L);
        }

        UnifiedLog open(File parent, long logStartOffset, long recoveryPoint) throws Exception {
            return UnifiedLog.create(new File(parent, topic + "-0"), new LogConfig(config), logStartOffset, recoveryPoint,
                new InlineScheduler(), new BrokerTopicStats(true), time, 900000, new ProducerStateManagerConfig(86400000, false),
                600000, new LogDirFailureChannel(1), true, Optional.of(tip.topicId()), new ConcurrentHashMap<>(), true,
                LogOffsetsListener.NO_OP_OFFSETS_LISTENER);
        }

        /** `count` records in epoch `epoch`, batches of 1-5, timestamps rising evenly from `fromMs` to `toMs`. */
        void write(int epoch, int count, long fromMs, long toMs) throws Exception {
            int i = 0;
            while (i < count) {
                int n = Math.min(count - i, 1 + random.nextInt(5));
                SimpleRecord[] records = new SimpleRecord[n];
                long ts = 0;
                for (int j = 0; j < n; j++, i++) {
                    ts = count == 1 ? toMs : fromMs + (toMs - fromMs) * i / (count - 1);
                    long offset = log.logEndOffset() + j;
                    String value = "{\"event\":" + offset + ",\"pad\":\"" + "x".repeat(150 + random.nextInt(300)) + "\"}";
                    records[j] = new SimpleRecord(ts, ("key-" + random.nextInt(1000)).getBytes(StandardCharsets.UTF_8),
                        value.getBytes(StandardCharsets.UTF_8));
                }
                time.ms = Math.max(time.ms, ts);
                log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records), epoch);
            }
            log.updateHighWatermark(log.logEndOffset());
        }

        /** Rolls the active segment, as segment.ms or segment.bytes would. */
        void roll() throws Exception {
            log.roll();
        }

        /** The broker becoming leader in a new epoch: Partition.makeLeader's assignEpochStartOffset at the log end. */
        void becomeLeader(int epoch) {
            log.assignEpochStartOffset(epoch, log.logEndOffset());
            story.add("broker " + THIS_BROKER + " leads epoch " + epoch + " from offset " + log.logEndOffset());
        }

        Uuid newId() {
            return new Uuid(0x5345474d00004000L | ((long) caseNo << 16), 0x8000000000000000L | nextId++);
        }

        /**
         * This log's rolled segment with base offset `base` uploaded as RLMCopyTask.copyLogSegment builds it
         * (end = next segment's base - 1, largestTimestamp, log size, the cache's epochs in range); finished or
         * left in COPY_SEGMENT_STARTED.
         */
        Uuid upload(long base, int broker, boolean finish, String label) throws Exception {
            List<LogSegment> segments = log.logSegments();
            for (int i = 0; i + 1 < segments.size(); i++) {
                LogSegment s = segments.get(i);
                if (s.baseOffset() != base) continue;
                long next = segments.get(i + 1).baseOffset();
                Map<Integer, Long> epochs = new LinkedHashMap<>();
                for (EpochEntry e : log.leaderEpochCache().epochEntriesInRange(s.baseOffset(), next)) epochs.put(e.epoch(), e.startOffset());
                time.ms += 2 * MINUTE;
                return metadata(s.baseOffset(), next - 1, s.largestTimestamp(), broker, s.log().sizeInBytes(), epochs,
                    s.txnIndex().isEmpty(), finish, label);
            }
            throw new IllegalStateException("no rolled segment at " + base);
        }

        /** A segment uploaded by another broker from its own log (metadata only here), as its copy task wrote it. */
        Uuid metadata(long start, long end, long maxTs, int broker, int size, Map<Integer, Long> epochs, boolean txnEmpty,
                      boolean finish, String label) throws Exception {
            Uuid id = newId();
            labels.put(id, label);
            RemoteLogSegmentId sid = new RemoteLogSegmentId(tip, id);
            RemoteLogMetadataManager rlmm = rlm.remoteLogMetadataManager();
            rlmm.addRemoteLogSegmentMetadata(new RemoteLogSegmentMetadata(sid, start, end, maxTs, broker, time.ms, size, epochs, txnEmpty)).get();
            story.add(label + " [" + start + ", " + end + "] epochs " + epochs + " COPY_SEGMENT_STARTED by broker " + broker
                + " (" + size + " bytes, max timestamp " + maxTs + ")");
            if (finish) {
                time.ms += MINUTE;
                rlmm.updateRemoteLogSegmentMetadata(new RemoteLogSegmentMetadataUpdate(sid, time.ms, Optional.empty(),
                    RemoteLogSegmentState.COPY_SEGMENT_FINISHED, broker)).get();
                story.add(label + " COPY_SEGMENT_FINISHED by broker " + broker);
                if (broker == THIS_BROKER) log.updateHighestOffsetInRemoteStorage(end);
            }
            return id;
        }

        /** Local retention: UnifiedLog.deleteOldSegments (local.retention.* on a tiered topic). */
        void localRetention() throws Exception {
            int n = log.deleteOldSegments();
            story.add("local retention at " + time.ms + " deleted " + n + " local segment(s); local log start offset "
                + log.localLogStartOffset());
        }

        /** DeleteRecords: the leader's UnifiedLog.maybeIncrementLogStartOffset(offset, ClientRecordDeletion). */
        void deleteRecords(long offset) {
            log.maybeIncrementLogStartOffset(offset, LogStartOffsetIncrementReason.ClientRecordDeletion);
            story.add("DeleteRecords at " + time.ms + " moved the log start offset to " + log.logStartOffset()
                + "; leader epoch cache now " + log.leaderEpochCache().epochEntries());
        }

        Object expirationTask() throws Exception {
            Class<?> c = Class.forName(RLM + "$RLMExpirationTask");
            Constructor<?> k = c.getDeclaredConstructor(RemoteLogManager.class, TopicIdPartition.class);
            k.setAccessible(true);
            return k.newInstance(rlm, tip);
        }

        /** One run of RLMExpirationTask.cleanupExpiredRemoteLogSegments; its Kafka log lines; its error if any. */
        List<String> pass(ObjectNode into) throws Exception {
            Object task = expirationTask();
            Method m = task.getClass().getDeclaredMethod("cleanupExpiredRemoteLogSegments");
            m.setAccessible(true);
            captured.clear();
            capturing = true;
            try {
                m.invoke(task);
                if (into != null) into.putNull("error");
            } catch (InvocationTargetException e) {
                if (into == null) throw e;
                into.put("error", e.getCause().toString());
            } finally {
                capturing = false;
            }
            return new ArrayList<>(captured);
        }

        /** An earlier run of the expiration task, at `atMs`, its lines kept for the story. */
        void earlierPass(long atMs) throws Exception {
            time.ms = atMs;
            ObjectNode o = JSON.createObjectNode();
            List<String> lines = pass(o);
            story.add("an earlier expiration pass at " + atMs + " (" + (o.get("error").isNull() ? "completed" : "failed: "
                + o.get("error").asText()) + "); its log:");
            for (String l : lines) story.add("    " + l);
        }

        /** Closes the log (trimming indexes, writing the snapshot), copies the partition as it stands, writes the log dir's files, reopens. */
        ObjectNode snapshotAndReopen() throws Exception {
            long lso = log.logStartOffset();
            log.close();
            File src = new File(logDir, topic + "-0");
            File dst = new File(caseDir, topic + "-0");
            copyTree(src.toPath(), dst.toPath());
            // The metadata partition as it stands before the pass.
            writeMetadataPartition(new File(caseDir, "__remote_log_metadata-0"), rec.events);
            Map<TopicPartition, Long> lsos = new LinkedHashMap<>();
            // As LogManager.checkpointLogStartOffsetsInDir picks them: every remote-enabled log, and others only when
            // their log start offset is above their first segment (not so for __remote_log_metadata-0 here).
            lsos.put(tip.topicPartition(), lso);
            new OffsetCheckpointFile(new File(caseDir, "log-start-offset-checkpoint"), new LogDirFailureChannel(1)).write(lsos);
            // The broker restarting: the log loaded from its dir, leadership taken again.
            log = open(logDir, lso, log.logEndOffset());
            log.updateHighWatermark(log.logEndOffset());
            Method f = RemoteLogManager.class.getDeclaredMethod("findHighestRemoteOffset", TopicIdPartition.class, UnifiedLog.class);
            f.setAccessible(true);
            Object highest = f.invoke(rlm, tip, log);
            long offset = (Long) highest.getClass().getMethod("offset").invoke(highest);
            log.updateHighestOffsetInRemoteStorage(offset);
            beforeLogStartOffset = lso;
            return null;
        }

        /** Snapshots the log dir, runs the pass at NOW, writes expiration-view.json and README.txt. */
        void finish(String readme) throws Exception {
            snapshotAndReopen();
            time.ms = NOW;
            ObjectNode view = JSON.createObjectNode();
            view.put("case", name);
            view.put("release", Cases.release);
            view.put("kafkaCommit", Cases.commit);
            view.put("topic", topic);
            view.put("topicId", tip.topicId().toString());
            view.put("partition", 0);
            view.put("brokerId", THIS_BROKER);
            view.put("nowMs", NOW);
            ObjectNode cfg = view.putObject("topicConfig");
            LogConfig lc = log.config();
            cfg.put("retention.ms", lc.retentionMs);
            cfg.put("retention.bytes", lc.retentionSize);
            cfg.put("local.retention.ms", lc.localRetentionMs());
            cfg.put("local.retention.bytes", lc.localRetentionBytes());
            cfg.put("remote.storage.enable", lc.remoteStorageEnable());
            cfg.put("remote.log.copy.disable", lc.remoteLogCopyDisable());
            cfg.put("cleanup.policy", String.join(",", lc.getList("cleanup.policy")));
            ObjectNode given = view.putObject("topicConfigGiven");
            for (Map.Entry<String, String> e : config.entrySet()) given.put(e.getKey(), e.getValue());
            view.set("before", logView());
            sizeBefore = lc.retentionSize > -1 ? sizeChecks(lc.retentionSize) : null;
            view.set("remoteSegmentsBefore", segments());
            view.set("segmentStatesBefore", states());
            view.set("metadataRecordsBefore", metadataRecords(0, rec.events.size()));
            // The pass.
            rec.passStart = rec.events.size();
            rec.deletes.clear();
            remoteLogStartOffsetCalls.clear();
            ObjectNode outcome = JSON.createObjectNode();
            List<String> lines = pass(outcome);
            view.set("pass", outcome);
            ArrayNode updates = outcome.putArray("metadataUpdatesPublished");
            for (int i = rec.passStart; i < rec.events.size(); i++) updates.add(event(rec.events.get(i)));
            ArrayNode deletes = outcome.putArray("deleteLogSegmentDataCalls");
            for (RemoteLogSegmentMetadata d : rec.deletes) deletes.add(d.remoteLogSegmentId().id().toString());
            outcome.set("reasons", reasons(lines));
            ArrayNode calls = outcome.putArray("updateRemoteLogStartOffsetCalls");
            for (long c : remoteLogStartOffsetCalls) calls.add(c);
            if (remoteLogStartOffsetCalls.isEmpty()) outcome.putNull("remoteLogStartOffset");
            else outcome.put("remoteLogStartOffset", remoteLogStartOffsetCalls.get(remoteLogStartOffsetCalls.size() - 1));
            ArrayNode kl = outcome.putArray("kafkaLog");
            // Kafka's lines; of a logged exception its first line only (its stack names the lab's frames too).
            for (String l : lines) if (!l.startsWith("\t")) kl.add(l);
            view.set("after", logView());
            view.set("remoteSegmentsAfter", segments());
            view.set("segmentStatesAfter", states());
            if (sizeBefore != null) {
                ObjectNode checks = view.putObject("retentionSizeChecks");
                checks.setAll(sizeBefore);
                ObjectNode variants = checks.putObject("kafkaWithRetentionBytes");
                for (Map.Entry<Long, String> e : cases.variants.entrySet()) {
                    variants.put(String.valueOf(lc.retentionSize + e.getKey()), e.getValue());
                }
            }
            JSON.writeValue(new File(caseDir, "expiration-view.json"), view);
            StringBuilder sb = new StringBuilder();
            sb.append(name).append(" (Kafka ").append(Cases.release).append(", commit ").append(Cases.commit).append(")\n\n");
            sb.append(readme.strip()).append("\n\n");
            sb.append("Written by the lab harness (lab/src/expiration/ExpirationCase.java in kseg) with Kafka's own classes:\n");
            sb.append(topic).append("-0/ is broker ").append(THIS_BROKER).append("'s partition, written by UnifiedLog (appendAsLeader, roll,\n");
            sb.append("deleteOldSegments under local retention) and closed; __remote_log_metadata-0/ holds every remote log metadata\n");
            sb.append("event published before the pass, serialized by RemoteLogMetadataSerde, one record a batch; log-start-offset-checkpoint\n");
            sb.append("is OffsetCheckpointFile's. Then the log was reopened (UnifiedLog.create), RemoteLogManager.findHighestRemoteOffset\n");
            sb.append("set its highest offset in remote storage, and RLMExpirationTask.cleanupExpiredRemoteLogSegments ran once at\n");
            sb.append("nowMs ").append(NOW).append(" (2025-12-01T00:00:00Z). expiration-view.json: what Kafka's objects reported before and after.\n\n");
            sb.append("Segment labels (id -> label):\n");
            for (Map.Entry<Uuid, String> e : labels.entrySet()) sb.append("  ").append(e.getKey()).append("  ").append(e.getValue()).append('\n');
            sb.append("\nHistory:\n");
            for (String s : story) sb.append("  ").append(s).append('\n');
            sb.append("\nOutcome: ");
            sb.append(outcomeLine(outcome)).append('\n');
            Files.write(new File(caseDir, "README.txt").toPath(), sb.toString().getBytes(StandardCharsets.UTF_8));
            if (cases.variant == 0) {
                Cases.summary.add(name + ": " + outcomeLine(outcome));
            } else {
                cases.variants.put(cases.variant, outcomeLine(outcome));
            }
            System.out.println("wrote " + caseDir + ": " + outcomeLine(outcome));
            rlm.close();
            log.close();
        }

        String outcomeLine(ObjectNode outcome) {
            StringBuilder sb = new StringBuilder();
            List<String> parts = new ArrayList<>();
            for (var it = outcome.get("reasons").fields(); it.hasNext(); ) {
                var e = it.next();
                parts.add(labels.getOrDefault(Uuid.fromString(e.getKey()), e.getKey()) + " (" + e.getValue().asText() + ")");
            }
            sb.append(parts.isEmpty() ? "nothing deleted" : "deleted " + String.join(", ", parts));
            sb.append("; remote log start offset ").append(outcome.get("remoteLogStartOffset").isNull() ? "not updated"
                : outcome.get("remoteLogStartOffset").asText());
            sb.append("; logStartOffset ").append(beforeLogStartOffset).append(" -> ").append(log.logStartOffset());
            if (!outcome.get("error").isNull()) sb.append("; pass failed: ").append(outcome.get("error").asText());
            return sb.toString();
        }

        static final Pattern ID = Pattern.compile("RemoteLogSegmentId\\{topicIdPartition=[^,]*, id=([A-Za-z0-9_-]{22})\\}");

        /** Each deleted segment's reason, from Kafka's own lines (a segment in DELETE_SEGMENT_STARTED before the pass logs none). */
        ObjectNode reasons(List<String> lines) {
            Map<String, String> byId = new LinkedHashMap<>();
            for (String l : lines) {
                Matcher m = ID.matcher(l);
                if (!m.find()) continue;
                String id = m.group(1);
                if (l.contains("About to delete remote log segment")) {
                    if (l.contains("due to retention time")) byId.putIfAbsent(id, "retention-time");
                    else if (l.contains("due to retention size")) byId.putIfAbsent(id, "retention-size");
                    else if (l.contains("due to log-start-offset")) byId.putIfAbsent(id, "log-start-offset");
                } else if (l.contains("Deleted remote log segment") && l.contains("due to leader-epoch-cache truncation")) {
                    byId.putIfAbsent(id, "leader-epoch-cache-truncation");
                }
            }
            ObjectNode o = JSON.createObjectNode();
            Set<String> deleted = new HashSet<>();
            for (RemoteLogSegmentMetadata d : rec.deletes) {
                String id = d.remoteLogSegmentId().id().toString();
                if (!deleted.add(id)) continue;
                String reason = byId.get(id);
                if (reason == null) {
                    boolean wasStarted = false;
                    for (RemoteLogMetadata e : rec.events.subList(0, rec.passStart)) {
                        if (e instanceof RemoteLogSegmentMetadataUpdate && ((RemoteLogSegmentMetadataUpdate) e).remoteLogSegmentId().id().toString().equals(id)) {
                            wasStarted = ((RemoteLogSegmentMetadataUpdate) e).state() == RemoteLogSegmentState.DELETE_SEGMENT_STARTED;
                        }
                    }
                    reason = wasStarted ? "retry-of-delete-segment-started" : "unlogged";
                }
                o.put(id, reason);
            }
            return o;
        }

        ObjectNode logView() throws Exception {
            ObjectNode o = JSON.createObjectNode();
            o.put("logStartOffset", log.logStartOffset());
            o.put("localLogStartOffset", log.localLogStartOffset());
            o.put("logEndOffset", log.logEndOffset());
            o.put("highWatermark", log.highWatermark());
            Method h = UnifiedLog.class.getDeclaredMethod("highestOffsetInRemoteStorage");
            h.setAccessible(true);
            o.put("highestOffsetInRemoteStorage", (Long) h.invoke(log));
            o.put("onlyLocalLogSegmentsSize", log.onlyLocalLogSegmentsSize());
            o.put("size", log.size());
            ArrayNode segs = o.putArray("localSegments");
            for (LogSegment s : log.logSegments()) {
                ObjectNode so = segs.addObject();
                so.put("baseOffset", s.baseOffset());
                so.put("readNextOffset", s.readNextOffset());
                so.put("size", s.size());
                so.put("largestTimestamp", s.largestTimestamp());
            }
            ArrayNode epochs = o.putArray("leaderEpochCache");
            for (EpochEntry e : log.leaderEpochCache().epochEntries()) {
                ObjectNode eo = epochs.addObject();
                eo.put("epoch", e.epoch());
                eo.put("startOffset", e.startOffset());
            }
            Method filter = RemoteLogManager.class.getDeclaredMethod("buildFilteredLeaderEpochMap", NavigableMap.class);
            filter.setAccessible(true);
            @SuppressWarnings("unchecked")
            NavigableMap<Integer, Long> filtered = (NavigableMap<Integer, Long>) filter.invoke(null, log.leaderEpochCache().epochWithOffsets());
            ObjectNode fo = o.putObject("filteredLeaderEpochMap");
            for (Map.Entry<Integer, Long> e : filtered.entrySet()) fo.put(String.valueOf(e.getKey()), e.getValue());
            return o;
        }

        /** Every segment the metadata cache holds (listAllRemoteLogSegments), by start offset then id. */
        ArrayNode segments() throws Exception {
            List<RemoteLogSegmentMetadata> all = new ArrayList<>();
            Iterator<RemoteLogSegmentMetadata> it = rlm.remoteLogMetadataManager().listRemoteLogSegments(tip);
            while (it.hasNext()) all.add(it.next());
            all.sort(Comparator.comparingLong(RemoteLogSegmentMetadata::startOffset).thenComparing(s -> s.remoteLogSegmentId().id().toString()));
            Method within = RemoteLogManager.class.getDeclaredMethod("isRemoteSegmentWithinLeaderEpochs",
                RemoteLogSegmentMetadata.class, long.class, NavigableMap.class);
            within.setAccessible(true);
            Method filter = RemoteLogManager.class.getDeclaredMethod("buildFilteredLeaderEpochMap", NavigableMap.class);
            filter.setAccessible(true);
            Object lineage = filter.invoke(null, log.leaderEpochCache().epochWithOffsets());
            ArrayNode a = JSON.createArrayNode();
            for (RemoteLogSegmentMetadata s : all) {
                ObjectNode o = a.addObject();
                o.put("id", s.remoteLogSegmentId().id().toString());
                o.put("label", labels.get(s.remoteLogSegmentId().id()));
                o.put("startOffset", s.startOffset());
                o.put("endOffset", s.endOffset());
                ObjectNode ep = o.putObject("segmentLeaderEpochs");
                for (Map.Entry<Integer, Long> e : s.segmentLeaderEpochs().entrySet()) ep.put(String.valueOf(e.getKey()), e.getValue());
                o.put("segmentSizeInBytes", s.segmentSizeInBytes());
                o.put("maxTimestampMs", s.maxTimestampMs());
                o.put("eventTimestampMs", s.eventTimestampMs());
                o.put("brokerId", s.brokerId());
                o.put("state", s.state().name());
                o.put("txnIdxEmpty", s.isTxnIdxEmpty());
                o.put("withinLeaderEpochLineage", (Boolean) within.invoke(null, s, log.logEndOffset(), lineage));
            }
            return a;
        }

        ArrayNode metadataRecords(int from, int to) {
            ArrayNode a = JSON.createArrayNode();
            for (int i = from; i < to; i++) {
                ObjectNode o = event(rec.events.get(i));
                o.put("offset", i);
                a.add(o);
            }
            return a;
        }

        ObjectNode event(RemoteLogMetadata m) {
            ObjectNode o = JSON.createObjectNode();
            o.put("type", m.getClass().getSimpleName());
            if (m instanceof RemoteLogSegmentMetadata) {
                RemoteLogSegmentMetadata s = (RemoteLogSegmentMetadata) m;
                o.put("id", s.remoteLogSegmentId().id().toString());
                o.put("state", s.state().name());
            } else if (m instanceof RemoteLogSegmentMetadataUpdate) {
                RemoteLogSegmentMetadataUpdate u = (RemoteLogSegmentMetadataUpdate) m;
                o.put("id", u.remoteLogSegmentId().id().toString());
                o.put("state", u.state().name());
            }
            o.put("brokerId", m.brokerId());
            o.put("eventTimestampMs", m.eventTimestampMs());
            return o;
        }

        /**
         * The retention-size terms from Kafka's figures before the pass: onlyLocalLogSegmentsSize, and the
         * COPY_SEGMENT_FINISHED segments listed under the filtered lineage's epochs that Kafka's
         * isRemoteSegmentWithinLeaderEpochs accepts, each once (as buildRetentionSizeData adds them), beside
         * the figures a wrong reading would give.
         */
        ObjectNode sizeChecks(long retentionBytes) throws Exception {
            Method within = RemoteLogManager.class.getDeclaredMethod("isRemoteSegmentWithinLeaderEpochs",
                RemoteLogSegmentMetadata.class, long.class, NavigableMap.class);
            within.setAccessible(true);
            Method filter = RemoteLogManager.class.getDeclaredMethod("buildFilteredLeaderEpochMap", NavigableMap.class);
            filter.setAccessible(true);
            @SuppressWarnings("unchecked")
            NavigableMap<Integer, Long> lineage = (NavigableMap<Integer, Long>) filter.invoke(null, log.leaderEpochCache().epochWithOffsets());
            long once = 0;
            long perEpoch = 0;
            long allFinished = 0;
            Set<Uuid> seen = new HashSet<>();
            ArrayNode counted = JSON.createArrayNode();
            for (int epoch : lineage.keySet()) {
                Iterator<RemoteLogSegmentMetadata> it = rlm.remoteLogMetadataManager().listRemoteLogSegments(tip, epoch);
                while (it.hasNext()) {
                    RemoteLogSegmentMetadata m = it.next();
                    if (m.state() != RemoteLogSegmentState.COPY_SEGMENT_FINISHED) continue;
                    if (!(Boolean) within.invoke(null, m, log.logEndOffset(), lineage)) continue;
                    perEpoch += m.segmentSizeInBytes();
                    if (seen.add(m.remoteLogSegmentId().id())) {
                        once += m.segmentSizeInBytes();
                        counted.add(m.remoteLogSegmentId().id().toString());
                    }
                }
            }
            Iterator<RemoteLogSegmentMetadata> it = rlm.remoteLogMetadataManager().listRemoteLogSegments(tip);
            while (it.hasNext()) {
                RemoteLogSegmentMetadata m = it.next();
                if (m.state() == RemoteLogSegmentState.COPY_SEGMENT_FINISHED) allFinished += m.segmentSizeInBytes();
            }
            long local = log.onlyLocalLogSegmentsSize();
            ObjectNode o = JSON.createObjectNode();
            o.put("note", "harness arithmetic over Kafka's figures before the pass; kafkaWithRetentionBytes: the outcome of the "
                + "same case rebuilt and passed by Kafka with retention.bytes a few bytes either side");
            o.put("retentionBytes", retentionBytes);
            o.put("onlyLocalLogSegmentsSize", local);
            o.set("remoteSegmentsCounted", counted);
            o.put("remoteFinishedWithinLineageOnce", once);
            o.put("totalSize", local + once);
            o.put("breach", local + once - retentionBytes);
            o.put("breachWithoutLocalTerm", once - retentionBytes);
            o.put("breachCountingWholeLocalLog", log.size() + once - retentionBytes);
            o.put("breachCountingSegmentsPerEpoch", local + perEpoch - retentionBytes);
            o.put("breachCountingEveryFinishedSegment", local + allFinished - retentionBytes);
            return o;
        }

        /** Every segment id the metadata ever named, with the state its last event gave, and whether the cache still holds it. */
        ObjectNode states() throws Exception {
            Map<String, String> last = new LinkedHashMap<>();
            for (RemoteLogMetadata e : rec.events) {
                if (e instanceof RemoteLogSegmentMetadata) {
                    last.put(((RemoteLogSegmentMetadata) e).remoteLogSegmentId().id().toString(), ((RemoteLogSegmentMetadata) e).state().name());
                } else if (e instanceof RemoteLogSegmentMetadataUpdate) {
                    last.put(((RemoteLogSegmentMetadataUpdate) e).remoteLogSegmentId().id().toString(), ((RemoteLogSegmentMetadataUpdate) e).state().name());
                }
            }
            Set<String> held = new HashSet<>();
            Iterator<RemoteLogSegmentMetadata> it = rlm.remoteLogMetadataManager().listRemoteLogSegments(tip);
            while (it.hasNext()) held.add(it.next().remoteLogSegmentId().id().toString());
            ObjectNode o = JSON.createObjectNode();
            for (Map.Entry<String, String> e : last.entrySet()) {
                ObjectNode s = o.putObject(e.getKey());
                s.put("label", labels.get(Uuid.fromString(e.getKey())));
                s.put("lastPublishedState", e.getValue());
                s.put("inCache", held.contains(e.getKey()));
            }
            return o;
        }
    }

    // ---- the cases ----

    static final class Cases {
        static String release;
        static String commit;
        static final List<String> summary = new ArrayList<>();
        final File out;
        final File work;
        /** retention.bytes is moved by this many bytes in a variant run (0: the case itself). */
        long variant = 0;
        final Map<Long, String> variants = new TreeMap<>();

        /** A retention.bytes case: rebuilt and passed with retention.bytes moved by each delta, then written. */
        void withVariants(ThrowingRunnable body, long... deltas) throws Exception {
            variants.clear();
            for (long d : deltas) {
                variant = d;
                body.run();
            }
            variant = 0;
            body.run();
        }

        Cases(File out, File work, String release, String commit) {
            this.out = out;
            this.work = work;
            Cases.release = release;
            Cases.commit = commit;
        }

        static Map<String, String> cfg(String... kv) {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
            return m;
        }


        /** Sum of the sizes of the named segments as the metadata records them. */
        static long sizes(Sim sim, Uuid... ids) throws Exception {
            long n = 0;
            Iterator<RemoteLogSegmentMetadata> it = sim.rlm.remoteLogMetadataManager().listRemoteLogSegments(sim.tip);
            List<Uuid> want = List.of(ids);
            while (it.hasNext()) {
                RemoteLogSegmentMetadata m = it.next();
                if (want.contains(m.remoteLogSegmentId().id())) n += m.segmentSizeInBytes();
            }
            return n;
        }

        /** One segment: `count` records of `epoch` from `fromMs` to `toMs`, then rolled. */
        static long seg(Sim s, int epoch, int count, long fromMs, long toMs) throws Exception {
            long base = s.log.logEndOffset();
            s.write(epoch, count, fromMs, toMs);
            s.roll();
            return base;
        }

        void time() throws Exception {
            Sim s = new Sim(this, 1, "time", "tm-orders", NOW - 11 * DAY, cfg("retention.ms", String.valueOf(7 * DAY),
                "retention.bytes", "-1", "local.retention.ms", String.valueOf(4 * DAY + 12 * HOUR), "local.retention.bytes", "-2"));
            long[] b = new long[8];
            b[0] = seg(s, 0, 100, NOW - 10 * DAY, NOW - 9 * DAY - 12 * HOUR);
            s.upload(b[0], THIS_BROKER, true, "R0");
            b[1] = seg(s, 0, 100, NOW - 9 * DAY, NOW - 8 * DAY);
            s.upload(b[1], THIS_BROKER, true, "R1");
            b[2] = seg(s, 0, 100, NOW - 8 * DAY + HOUR, NOW - 7 * DAY);
            s.upload(b[2], THIS_BROKER, true, "R2 (max timestamp = now - retention.ms)");
            b[3] = seg(s, 0, 60, NOW - 7 * DAY + 1, NOW - 7 * DAY + 1);
            s.upload(b[3], THIS_BROKER, true, "R3 (max timestamp = now - retention.ms + 1)");
            s.becomeLeader(1);
            b[4] = seg(s, 1, 100, NOW - 6 * DAY, NOW - 5 * DAY);
            s.upload(b[4], THIS_BROKER, true, "R4");
            b[5] = seg(s, 1, 100, NOW - 5 * DAY, NOW - 4 * DAY);
            s.upload(b[5], THIS_BROKER, true, "R5");
            b[6] = seg(s, 1, 100, NOW - 4 * DAY, NOW - 3 * DAY);
            s.upload(b[6], THIS_BROKER, true, "R6");
            b[7] = seg(s, 1, 100, NOW - 3 * DAY, NOW - DAY);
            s.write(1, 40, NOW - DAY, NOW - HOUR);
            s.time.ms = NOW - 30 * MINUTE;
            s.localRetention();
            s.finish("""
                retention.ms breached by the oldest remote segments. retention.ms is 7 days, so the task's cleanupUntilMs is
                now - 7d: R0 and R1 are older; R2's max timestamp equals cleanupUntilMs exactly (maxTimestampMs <= cleanupUntilMs
                deletes it); R3's is one millisecond later and stops the walk. Local retention (4.5 days) had already deleted
                R0-R4's local copies; R5 and R6 are both local and remote; the segment after R6 is local only (not yet copied).
                """);
        }

        void size() throws Exception {
            Map<String, String> c = cfg("retention.ms", "-1", "retention.bytes", "-1",
                "local.retention.ms", String.valueOf(3 * DAY + 12 * HOUR), "local.retention.bytes", "-2");
            Sim s = new Sim(this, 2, "size", "sz-payments", NOW - 10 * DAY, c);
            int[] counts = {90, 110, 80, 95, 105, 120};
            Uuid[] r = new Uuid[6];
            for (int i = 0; i < 6; i++) {
                if (i == 3) s.becomeLeader(1);
                long base = seg(s, i < 3 ? 0 : 1, counts[i], NOW - (9 - i) * DAY, NOW - (8 - i) * DAY);
                r[i] = s.upload(base, THIS_BROKER, true, "R" + i);
            }
            seg(s, 1, 100, NOW - 3 * DAY, NOW - 2 * DAY);
            s.write(1, 30, NOW - 2 * DAY, NOW - HOUR);
            s.time.ms = NOW - 30 * MINUTE;
            s.localRetention();
            long local = s.log.onlyLocalLogSegmentsSize();
            long remote = sizes(s, r);
            long retention = local + remote - sizes(s, r[0], r[1]);
            s.config.put("retention.bytes", String.valueOf(retention + variant));
            s.story.add("retention.bytes set to onlyLocalLogSegmentsSize " + local + " + finished remote " + remote
                + " - (R0 + R1) = " + retention);
            s.finish("""
                retention.bytes breached. The task's total is onlyLocalLogSegmentsSize (local segments whose base offset is at or
                above the highest offset in remote storage: the segment after R5 and the active one; R5's local copy is not
                counted) plus every COPY_SEGMENT_FINISHED remote segment in the leader-epoch lineage (R0-R5). retention.bytes is
                set so the breach is exactly R0 + R1: R0 goes, R1 goes with 0 bytes left over (remainingBreachedSize -
                size >= 0), R2 stays and stops the walk. One byte less of breach keeps R1; counting R5's local copy too (or
                the whole local log) adds at least R2's size to the breach and deletes R2 as well (see checks).
                """);
        }

        void timeAndSize() throws Exception {
            Map<String, String> c = cfg("retention.ms", String.valueOf(6 * DAY), "retention.bytes", "-1",
                "local.retention.ms", String.valueOf(3 * DAY + 12 * HOUR), "local.retention.bytes", "-2");
            Sim s = new Sim(this, 3, "time-and-size", "ts-clicks", NOW - 11 * DAY, c);
            int[] counts = {100, 100, 100, 90, 110, 100};
            long[][] ts = {{10, 9}, {9, 8}, {8, 6}, {6, 5}, {5, 4}, {4, 3}};
            Uuid[] r = new Uuid[6];
            for (int i = 0; i < 6; i++) {
                long to = NOW - ts[i][1] * DAY + (i == 2 ? 2 * HOUR : 0);
                long base = seg(s, 0, counts[i], NOW - ts[i][0] * DAY + 1, to);
                r[i] = s.upload(base, THIS_BROKER, true, "R" + i);
            }
            seg(s, 0, 100, NOW - 3 * DAY, NOW - 2 * DAY);
            s.write(0, 25, NOW - 2 * DAY, NOW - HOUR);
            s.time.ms = NOW - 30 * MINUTE;
            s.localRetention();
            long local = s.log.onlyLocalLogSegmentsSize();
            long remote = sizes(s, r);
            long retention = local + remote - sizes(s, r[0], r[1], r[2]) - 10;
            s.config.put("retention.bytes", String.valueOf(retention + variant));
            s.story.add("retention.bytes set to onlyLocalLogSegmentsSize " + local + " + finished remote " + remote
                + " - (R0 + R1 + R2) - 10 = " + retention);
            s.finish("""
                Both set. retention.ms (6 days) deletes R0 and R1 (checked first for each segment; a time deletion also takes the
                segment's size off the remaining breach). retention.bytes is set so the breach is R0 + R1 + R2 + 10 bytes: after
                the two time deletions R2 (not time-breached: its max timestamp is now - 6d + 2h) goes for size, leaving 10 bytes
                of breach, which R3 is bigger than: the walk stops there.
                """);
        }

        void logStart() throws Exception {
            Map<String, String> c = cfg("retention.ms", "-1", "retention.bytes", "-1",
                "local.retention.ms", String.valueOf(3 * DAY + 12 * HOUR), "local.retention.bytes", "-2");
            Sim s = new Sim(this, 4, "log-start", "ls-audit", NOW - 10 * DAY, c);
            long b0 = seg(s, 0, 100, NOW - 9 * DAY, NOW - 8 * DAY);
            s.upload(b0, THIS_BROKER, true, "R0 (epoch 0 only)");
            long b1 = s.log.logEndOffset();
            s.write(0, 50, NOW - 8 * DAY, NOW - 7 * DAY - 12 * HOUR);
            s.becomeLeader(1);
            s.write(1, 50, NOW - 7 * DAY - 12 * HOUR, NOW - 7 * DAY);
            s.roll();
            s.upload(b1, THIS_BROKER, true, "R1 (epochs 0 and 1)");
            for (int i = 2; i < 6; i++) {
                long base = seg(s, 1, 100, NOW - (9 - i) * DAY, NOW - (8 - i) * DAY);
                s.upload(base, THIS_BROKER, true, "R" + i);
            }
            seg(s, 1, 100, NOW - 3 * DAY, NOW - 2 * DAY);
            s.write(1, 30, NOW - 2 * DAY, NOW - 2 * HOUR);
            s.time.ms = NOW - 90 * MINUTE;
            s.localRetention();
            s.time.ms = NOW - HOUR;
            s.deleteRecords(330);
            s.finish("""
                The log start offset moved to 330 by DeleteRecords (UnifiedLog.maybeIncrementLogStartOffset, which truncates the
                leader epoch cache from the start: it now holds only epoch 1 from 330). No retention is set. R1 (epochs 0 and 1,
                ending below 330) and R2 go in the first loop for the log-start-offset breach (every epoch of the segment at or
                below the cache's first epoch, end offset below the log start offset); R3 holds offset 330 and stops the walk.
                R0 (epoch 0 only) is never listed by that loop, which walks only the cache's epochs: it goes in the last phase,
                "leader-epoch-cache truncation", as its epochs are all below the cache's earliest epoch. Neither phase moves the
                log start offset: the updateRemoteLogStartOffset callback is not called.
                """);
        }

        void deleteRetry() throws Exception {
            Map<String, String> c = cfg("retention.ms", String.valueOf(4 * DAY), "retention.bytes", "-1",
                "local.retention.ms", String.valueOf(2 * DAY + 12 * HOUR), "local.retention.bytes", "-2");
            Sim s = new Sim(this, 5, "delete-retry", "dr-events", NOW - 9 * DAY, c);
            long b0 = seg(s, 0, 100, NOW - 8 * DAY, NOW - 7 * DAY);
            s.upload(b0, THIS_BROKER, true, "R0");
            long b1 = seg(s, 0, 100, NOW - 7 * DAY, NOW - 6 * DAY);
            Uuid r1 = s.upload(b1, THIS_BROKER, true, "R1 (its delete failed in an earlier pass)");
            long b2 = seg(s, 0, 100, NOW - 6 * DAY, NOW - 5 * DAY + 2 * HOUR);
            s.upload(b2, THIS_BROKER, true, "R2");
            long b3 = seg(s, 0, 100, NOW - 5 * DAY + 2 * HOUR, NOW - 4 * DAY - HOUR);
            s.write(0, 20, NOW - 4 * DAY - HOUR, NOW - 4 * DAY - 50 * MINUTE);
            s.upload(b3, THIS_BROKER, false, "R3-stuck (upload never finished: broker restarted mid-copy)");
            s.story.add("broker " + THIS_BROKER + " restarted; on becoming leader again its copy task re-uploads R3's offsets with a new id");
            s.becomeLeader(1);
            s.upload(b3, THIS_BROKER, true, "R3 (the re-upload)");
            s.write(1, 80, NOW - 4 * DAY - 50 * MINUTE, NOW - 3 * DAY);
            long b4 = s.log.logEndOffset() - 100;
            s.roll();
            s.upload(b4, THIS_BROKER, true, "R4 (epochs 0 and 1)");
            long b5 = seg(s, 1, 100, NOW - 3 * DAY, NOW - 2 * DAY);
            s.upload(b5, THIS_BROKER, true, "R5");
            seg(s, 1, 100, NOW - 2 * DAY, NOW - DAY - HOUR);
            s.rec.failDeletes.add(r1);
            s.earlierPass(NOW - DAY);
            s.write(1, 30, NOW - DAY, NOW - 2 * HOUR);
            s.time.ms = NOW - HOUR;
            s.localRetention();
            s.finish("""
                A retried delete and a stuck upload. An earlier pass (a day before, same retention.ms of 4 days) moved the log
                start offset to 200 and deleted R0, then the storage failed on R1 after DELETE_SEGMENT_STARTED was published, which
                aborted that pass: R1 is left in DELETE_SEGMENT_STARTED. R3's first upload never finished (COPY_SEGMENT_STARTED,
                R3-stuck); after a restart the copy task uploaded the same offsets again as R3. In this pass R1 is queued for
                deletion without a retention check and without moving the log start offset; R2, R3 and R3-stuck are breached by
                time (a COPY_SEGMENT_STARTED segment is listed per epoch and judged like a finished one); R4 stops the walk.
                """);
        }

        void unclean() throws Exception {
            Map<String, String> c = cfg("retention.ms", String.valueOf(5 * DAY), "retention.bytes", "-1",
                "local.retention.ms", String.valueOf(3 * DAY), "local.retention.bytes", "-2");
            Sim s = new Sim(this, 6, "unclean", "uc-ledger", NOW - 14 * DAY, c);
            UnifiedLog mine = s.log;
            // Broker 1 led epochs 0 and 1 and uploaded two segments.
            s.log = s.open(new File(s.work, "broker-1"), 0, 0);
            long a0 = seg(s, 0, 100, NOW - 13 * DAY, NOW - 12 * DAY);
            s.upload(a0, 1, true, "A0 (broker 1, epoch 0)");
            long a1 = s.log.logEndOffset();
            s.write(0, 60, NOW - 12 * DAY, NOW - 11 * DAY - 12 * HOUR);
            s.log.assignEpochStartOffset(1, s.log.logEndOffset());
            s.write(1, 40, NOW - 11 * DAY - 12 * HOUR, NOW - 11 * DAY);
            s.roll();
            s.upload(a1, 1, true, "A1 (broker 1, epochs 0 and 1)");
            s.write(1, 50, NOW - 11 * DAY, NOW - 10 * DAY - 12 * HOUR);
            s.log.close();
            s.story.add("broker 1 failed; broker 3, a new replica with an empty log, was elected uncleanly");
            // Broker 3 (this broker): unclean leader in epoch 2 from offset 0.
            s.log = mine;
            s.becomeLeader(2);
            long b0 = seg(s, 2, 100, NOW - 10 * DAY, NOW - 9 * DAY);
            s.upload(b0, THIS_BROKER, true, "B0");
            long b1 = seg(s, 2, 100, NOW - 9 * DAY, NOW - 8 * DAY);
            s.upload(b1, THIS_BROKER, true, "B1");
            seg(s, 2, 100, NOW - 8 * DAY, NOW - 7 * DAY);
            // Broker 2 replicated epoch 2, then led epoch 3 (broker 3 out of the ISR) and uploaded [200, 349].
            s.log = s.open(new File(s.work, "broker-2"), 0, 0);
            s.log.assignEpochStartOffset(2, 0);
            seg(s, 2, 200, NOW - 10 * DAY, NOW - 8 * DAY);
            long c0 = s.log.logEndOffset();
            s.write(2, 100, NOW - 8 * DAY, NOW - 7 * DAY);
            s.log.assignEpochStartOffset(3, s.log.logEndOffset());
            s.story.add("broker 2 leads epoch 3 from offset 300 (broker 3 out of the ISR)");
            s.write(3, 50, NOW - 7 * DAY, NOW - 6 * DAY - 12 * HOUR);
            s.roll();
            s.upload(c0, 2, true, "C0 (broker 2, epochs 2 and 3: not in broker 3's lineage)");
            s.log.close();
            s.story.add("broker 2 failed; broker 3 (log end 300, last epoch 2) was elected uncleanly in epoch 4");
            s.log = mine;
            s.becomeLeader(4);
            long b3 = seg(s, 4, 100, NOW - 6 * DAY, NOW - 4 * DAY);
            s.upload(b3, THIS_BROKER, true, "B3");
            long b4 = seg(s, 4, 100, NOW - 4 * DAY, NOW - 2 * DAY);
            s.upload(b4, THIS_BROKER, true, "B4");
            s.write(4, 50, NOW - 2 * DAY, NOW - HOUR);
            s.time.ms = NOW - 30 * MINUTE;
            s.localRetention();
            s.finish("""
                Two unclean elections. Broker 1 led epochs 0 and 1 and uploaded A0 and A1. Broker 3 (this broker), a new replica
                with an empty log, became leader in epoch 2 from offset 0 and uploaded B0 and B1 (same offsets as A0 and A1,
                other data). Broker 2 followed, then led epoch 3 from offset 300 while broker 3 was out of the ISR, and uploaded
                C0 [200, 349] with epochs 2 and 3. Broker 3, with its log ending at 300 in epoch 2, was elected uncleanly in
                epoch 4 and uploaded B3 and B4. Its leader epoch cache is {2: 0, 4: 300}. retention.ms is 5 days. The first loop
                walks epochs 2 and 4: B0 and B1 go for time; C0 is older than retention but not within the lineage (its epoch 2
                is followed by epoch 3 at 300, the cache's by epoch 4), so the loop skips it and goes on; B3 stops the walk. The
                last phase deletes every segment whose epochs are all below the cache's earliest epoch (2): A0 and A1. C0 stays
                (until the log start offset leaves epoch 2 behind, when its epochs are all below the earliest). A1 spans epochs 0
                and 1, so the last phase lists it under both and deletes it twice: two deleteLogSegmentData calls and two
                DELETE_SEGMENT_STARTED/FINISHED pairs published, the second pair refused by the metadata cache (segment unknown:
                RemotePartitionMetadataStore logs a warning, as the topic-based manager's consumer does).
                """);
        }

        void nothing() throws Exception {
            Map<String, String> c = cfg("retention.ms", "-1", "retention.bytes", "-1",
                "local.retention.ms", String.valueOf(2 * DAY), "local.retention.bytes", "-2");
            Sim s = new Sim(this, 7, "nothing", "nt-metrics", NOW - 200 * DAY, c);
            for (int i = 0; i < 6; i++) {
                long base = seg(s, i < 2 ? 0 : 1, 100, NOW - (180 - 30 * i) * DAY, NOW - (170 - 30 * i) * DAY);
                if (i == 1) s.becomeLeader(1);
                s.upload(base, THIS_BROKER, true, "R" + i);
            }
            seg(s, 1, 100, NOW - 3 * DAY, NOW - DAY);
            s.write(1, 20, NOW - DAY, NOW - HOUR);
            s.time.ms = NOW - 30 * MINUTE;
            s.localRetention();
            s.finish("""
                retention.ms and retention.bytes both -1 (infinite): segments months old stay; nothing is deleted and the log
                start offset is not updated. Local retention (2 days) still deleted every uploaded segment's local copy.
                """);
        }

        void epochs() throws Exception {
            Map<String, String> c = cfg("retention.ms", "-1", "retention.bytes", "-1",
                "local.retention.ms", String.valueOf(3 * DAY + 12 * HOUR), "local.retention.bytes", "-2");
            Sim s = new Sim(this, 8, "epochs", "ep-inventory", NOW - 10 * DAY, c);
            Uuid[] r = new Uuid[5];
            long b0 = seg(s, 0, 100, NOW - 9 * DAY, NOW - 8 * DAY);
            r[0] = s.upload(b0, THIS_BROKER, true, "R0 (epoch 0)");
            long b1 = s.log.logEndOffset();
            s.write(0, 50, NOW - 8 * DAY, NOW - 7 * DAY - 12 * HOUR);
            s.becomeLeader(1);
            s.becomeLeader(2);
            s.story.add("epoch 1 wrote nothing: LeaderEpochFileCache.assign(2, 150) replaced (1, 150); cache "
                + s.log.leaderEpochCache().epochEntries());
            s.write(2, 50, NOW - 7 * DAY - 12 * HOUR, NOW - 7 * DAY);
            s.roll();
            // Uploaded by a leader whose epoch map still named the empty epoch 1 (Kafka 4.2's own cache never holds it).
            List<LogSegment> segs = s.log.logSegments();
            LogSegment seg1 = segs.get(1);
            Map<Integer, Long> withEmpty = new LinkedHashMap<>();
            withEmpty.put(0, b1);
            withEmpty.put(1, b1 + 50);
            withEmpty.put(2, b1 + 50);
            s.time.ms += 2 * MINUTE;
            r[1] = s.metadata(b1, segs.get(2).baseOffset() - 1, seg1.largestTimestamp(), THIS_BROKER, seg1.log().sizeInBytes(),
                withEmpty, true, true, "R1 (epochs 0, 1 (empty) and 2)");
            int[] counts = {80, 100, 100};
            for (int i = 2; i < 5; i++) {
                long base = seg(s, 2, counts[i - 2], NOW - (9 - i) * DAY, NOW - (8 - i) * DAY);
                r[i] = s.upload(base, THIS_BROKER, true, "R" + i);
            }
            seg(s, 2, 100, NOW - 4 * DAY, NOW - 2 * DAY);
            s.write(2, 30, NOW - 2 * DAY, NOW - HOUR);
            s.time.ms = NOW - 30 * MINUTE;
            s.localRetention();
            long local = s.log.onlyLocalLogSegmentsSize();
            long remote = sizes(s, r);
            long retention = local + remote - sizes(s, r[0], r[1]);
            s.config.put("retention.bytes", String.valueOf(retention + variant));
            s.story.add("retention.bytes set to onlyLocalLogSegmentsSize " + local + " + finished remote " + remote
                + " - (R0 + R1) = " + retention);
            s.finish("""
                Epochs. R1 spans epochs 0 and 2, and its metadata also names epoch 1 at the same start offset as epoch 2 (an epoch
                with no records; Kafka 4.2's own leader epoch cache drops such an entry, so the lab wrote this one map by hand).
                buildFilteredLeaderEpochMap drops epoch 1 (the later of two epochs at one offset is kept), so R1 is within the
                lineage {0: 0, 2: 150}. R1 is listed under epochs 0 and 2 (and 1); buildRetentionSizeData counts it once. The
                breach is exactly R0 + R1: both go in the epoch-0 walk; under epoch 2 R1 is already queued and skipped, and R2
                (smaller than R1) stays. Counting R1 once per lineage epoch would delete R2 too.
                """);
        }

        void oneRecordSegment() throws Exception {
            Map<String, String> c = cfg("retention.ms", "-1", "retention.bytes", "-1",
                "local.retention.ms", String.valueOf(3 * DAY + 12 * HOUR), "local.retention.bytes", "-2");
            Sim s = new Sim(this, 9, "one-record-segment", "or-alerts", NOW - 10 * DAY, c);
            Uuid[] r = new Uuid[5];
            for (int i = 0; i < 4; i++) {
                long base = seg(s, 0, 100, NOW - (9 - i) * DAY, NOW - (8 - i) * DAY);
                r[i] = s.upload(base, THIS_BROKER, true, "R" + i);
            }
            long b4 = seg(s, 0, 1, NOW - 3 * DAY - 12 * HOUR, NOW - 3 * DAY - 12 * HOUR);
            r[4] = s.upload(b4, THIS_BROKER, true, "R4 (one record: base offset = end offset)");
            seg(s, 0, 100, NOW - 3 * DAY, NOW - 2 * DAY);
            s.write(0, 30, NOW - 2 * DAY, NOW - HOUR);
            s.time.ms = NOW - 30 * MINUTE;
            s.localRetention();
            long local = s.log.onlyLocalLogSegmentsSize();
            long remote = sizes(s, r);
            long retention = local + remote - sizes(s, r[0]);
            s.config.put("retention.bytes", String.valueOf(retention + variant));
            s.story.add("retention.bytes set to onlyLocalLogSegmentsSize " + local + " + finished remote " + remote
                + " - R0 = " + retention);
            s.finish("""
                A one-record segment. R4 holds a single record (rolled by time on a quiet topic), so its base offset equals its
                end offset, which is the highest offset in remote storage. onlyLocalLogSegmentsSize counts local segments whose
                base offset is >= that offset, so R4's local copy is counted as local-only although it is also counted as a
                finished remote segment. retention.bytes is set so the breach, with that double count, is exactly R0: R0 goes.
                Without the double count the breach would be R0 - R4 bytes and nothing would go.
                """);
        }
    }

    /** A case body. */
    interface ThrowingRunnable {
        void run() throws Exception;
    }

    // ---- files ----

    static void writeMetadataPartition(File dir, List<RemoteLogMetadata> events) throws Exception {
        dir.mkdirs();
        RemoteLogMetadataSerde serde = new RemoteLogMetadataSerde();
        try (FileRecords records = FileRecords.open(new File(dir, String.format("%020d.log", 0)))) {
            long offset = 0;
            for (RemoteLogMetadata m : events) {
                // One record a batch, key null, as TopicBasedRemoteLogMetadataManager's producer sends them.
                records.append(MemoryRecords.withRecords(offset++, Compression.NONE,
                    new SimpleRecord(m.eventTimestampMs(), null, serde.serialize(m))));
            }
            records.flush();
        }
    }

    static void copyTree(Path src, Path dst) throws Exception {
        Files.createDirectories(dst);
        try (var s = Files.list(src)) {
            for (Path p : s.sorted().collect(Collectors.toList())) {
                Files.copy(p, dst.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    static void deleteTree(Path p) throws Exception {
        if (!Files.exists(p)) return;
        try (var s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) Files.delete(q);
        }
    }
}
