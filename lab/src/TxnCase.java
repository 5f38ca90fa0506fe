import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;

import java.io.File;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lab's transaction coordinator case: a `__transaction_state-0`
 * partition telling one coherent story (transactional ids committing,
 * one aborting, one left Ongoing, two expired by tombstones, a coordinator
 * failover after which the cluster runs a higher transaction.version),
 * every record the release's generated TransactionLogKey/TransactionLogValue
 * serialized as that release's TransactionLog.keyToBytes/valueToBytes
 * (Scala, in core, in every release here) does: the same framing, key
 * version, value version choice, fields set, and one record a batch as
 * TransactionStateManager.appendTransactionToLog appends it. Read back with
 * the generated classes' readers and JSON converters, as
 * TransactionLog.readTxnRecordKey/readTxnRecordValue frame them.
 */
public final class TxnCase {
    /** TransactionState ids (TransactionState.scala, TransactionState.java from 4.1). */
    static final String[] STATES = {
        "Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence",
    };
    static final int EMPTY = 0, ONGOING = 1, PREPARE_COMMIT = 2, PREPARE_ABORT = 3, COMPLETE_COMMIT = 4, COMPLETE_ABORT = 5;

    private final KsegLab lab;
    private final String pkg;
    private final Class<?> keyClass;
    private final Class<?> valueClass;
    private final Class<?> partitionsClass;
    /** 4.1 on: the key is coordinator-type prefixed (MessageUtil.toCoordinatorTypePrefixedBytes). */
    private final boolean typePrefixedKey;
    /** The release's TransactionVersion (3.9 on), or null. */
    private final Class<?> transactionVersion;
    private final List<MemoryRecords> batches = new ArrayList<>();
    private final List<String> told = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private long clock = KsegLab.BASE_TIME + 3_600_000L;
    private long offset = 0;
    private int leaderEpoch = 0;
    /** The cluster's finalized transaction.version, which picks the value version. */
    private int clusterTv = 0;

    /** One transactional id's metadata as the coordinator holds it. */
    private static final class Txn {
        final String id;
        long producerId;
        short epoch;
        final int timeoutMs;
        final Map<String, List<Integer>> partitions = new LinkedHashMap<>();
        long start = -1;
        int state = EMPTY;
        short clientTv = 0;
        long previousProducerId = -1;
        long nextProducerId = -1;
        short nextProducerEpoch = -1;

        Txn(String id, long producerId, int epoch, int timeoutMs) {
            this.id = id;
            this.producerId = producerId;
            this.epoch = (short) epoch;
            this.timeoutMs = timeoutMs;
        }
    }

    private TxnCase(KsegLab lab) throws Exception {
        this.lab = lab;
        String found = null;
        for (String p : new String[] {"org.apache.kafka.coordinator.transaction.generated", "kafka.internals.generated"}) {
            try {
                Class.forName(p + ".TransactionLogKey");
                found = p;
                break;
            } catch (ClassNotFoundException e) {
                // the release generates them in the other package
            }
        }
        if (found == null) throw new IllegalStateException("no generated TransactionLogKey");
        pkg = found;
        keyClass = Class.forName(pkg + ".TransactionLogKey");
        valueClass = Class.forName(pkg + ".TransactionLogValue");
        partitionsClass = Class.forName(pkg + ".TransactionLogValue$PartitionsSchema");
        typePrefixedKey = schemaDir().isDirectory()
            && Schemas.load(schemaDir()).get("TransactionLogKey").has("apiKey");
        Class<?> tv = null;
        try {
            tv = Class.forName("org.apache.kafka.server.common.TransactionVersion");
        } catch (ClassNotFoundException e) {
            // before 3.9: no transaction.version feature
        }
        transactionVersion = tv;
    }

    /** This case alone, into a scratch dir built before: TxnCase <src> <out>/<release> <release> <commit>. */
    public static void main(String[] args) throws Exception {
        write(new KsegLab(new File(args[0]), new File(args[1]), args[2], args[3]));
    }

    /** Entry point of the harness. */
    public static void write(KsegLab lab) throws Exception {
        new TxnCase(lab).run();
    }

    private File schemaDir() {
        File dir = lab.schemaDir("transaction-coordinator", "common/message");
        return dir.isDirectory() ? dir : lab.schemaDir("core", "common/message");
    }

    private static Object call(Object target, String name, Object arg) throws Exception {
        for (Method m : target.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 1) return m.invoke(target, arg);
        }
        throw new IllegalStateException(target.getClass().getSimpleName() + " has no " + name);
    }

    private boolean hasSetter(String name) {
        for (Method m : valueClass.getMethods()) if (m.getName().equals(name)) return true;
        return false;
    }

    private Object tvLevel(int level) throws Exception {
        return transactionVersion.getMethod("fromFeatureLevel", short.class).invoke(null, (short) level);
    }

    /**
     * The value version this release's valueToBytes writes at the cluster's
     * transaction.version: version 0 always through 3.8; 3.9's
     * usesFlexibleRecords (1 when transaction.version > 0); from 4.0
     * TransactionVersion.transactionLogValueVersion().
     */
    private short valueVersion() throws Exception {
        if (transactionVersion != null) {
            for (Method m : transactionVersion.getMethods()) {
                if (m.getName().equals("transactionLogValueVersion")) return (Short) m.invoke(tvLevel(clusterTv));
            }
            return (short) (clusterTv > 0 ? 1 : 0);
        }
        return 0;
    }

    /** Whether a client at this transaction version bumps the epoch at every end (TransactionVersion.supportsEpochBump, 4.0 on). */
    private boolean bumps(Txn t) throws Exception {
        if (transactionVersion == null || t.clientTv == 0) return false;
        for (Method m : transactionVersion.getMethods()) {
            if (m.getName().equals("supportsEpochBump")) return (Boolean) m.invoke(tvLevel(t.clientTv));
        }
        return false;
    }

    /** keyToBytes: version-prefixed at TransactionLogKey.HIGHEST_SUPPORTED_VERSION, coordinator-type prefixed from 4.1. */
    private byte[] keyBytes(String id) throws Exception {
        ApiMessage key = (ApiMessage) keyClass.getConstructor().newInstance();
        call(key, "setTransactionalId", id);
        if (typePrefixedKey) {
            return (byte[]) MessageUtil.class.getMethod("toCoordinatorTypePrefixedBytes", ApiMessage.class).invoke(null, key);
        }
        short highest = keyClass.getField("HIGHEST_SUPPORTED_VERSION").getShort(null);
        return MessageUtil.toVersionPrefixedBytes(highest, key);
    }

    /** valueToBytes: partitions null when Empty, else grouped by topic; ClientTransactionVersion set where the release sets it. */
    private byte[] valueBytes(Txn t, boolean withUnwrittenTags) throws Exception {
        ApiMessage value = (ApiMessage) valueClass.getConstructor().newInstance();
        call(value, "setProducerId", t.producerId);
        call(value, "setProducerEpoch", t.epoch);
        call(value, "setTransactionTimeoutMs", t.timeoutMs);
        call(value, "setTransactionStatus", (byte) t.state);
        call(value, "setTransactionLastUpdateTimestampMs", clock);
        call(value, "setTransactionStartTimestampMs", t.start);
        List<Object> partitions = null;
        if (t.state != EMPTY) {
            partitions = new ArrayList<>();
            for (Map.Entry<String, List<Integer>> e : t.partitions.entrySet()) {
                Object p = partitionsClass.getConstructor().newInstance();
                call(p, "setTopic", e.getKey());
                call(p, "setPartitionIds", new ArrayList<>(e.getValue()));
                partitions.add(p);
            }
        }
        call(value, "setTransactionPartitions", partitions);
        if (hasSetter("setClientTransactionVersion")) call(value, "setClientTransactionVersion", t.clientTv);
        if (withUnwrittenTags) {
            call(value, "setPreviousProducerId", t.previousProducerId);
            call(value, "setNextProducerId", t.nextProducerId);
            if (hasSetter("setNextProducerEpoch")) call(value, "setNextProducerEpoch", t.nextProducerEpoch);
        }
        return MessageUtil.toVersionPrefixedBytes(valueVersion(), value);
    }

    /** One batch at the next offset, by MemoryRecords.withRecords at the coordinator's leader epoch. */
    private void append(List<SimpleRecord> records) throws Exception {
        for (Method m : MemoryRecords.class.getMethods()) {
            Class<?>[] p = m.getParameterTypes();
            if (m.getName().equals("withRecords") && p.length == 10 && p[0] == byte.class) {
                batches.add((MemoryRecords) m.invoke(null, RecordBatch.CURRENT_MAGIC_VALUE, offset, KsegLab.noneCompression(p[2])[0],
                    TimestampType.CREATE_TIME, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE,
                    leaderEpoch, false, records.toArray(new SimpleRecord[0])));
                offset += records.size();
                return;
            }
        }
        throw new IllegalStateException("no MemoryRecords.withRecords(magic, offset, compression, ..., records)");
    }

    private void log(Txn t, int state, boolean withUnwrittenTags) throws Exception {
        clock += 1000;
        t.state = state;
        short version = valueVersion();
        append(List.of(new SimpleRecord(clock, keyBytes(t.id), valueBytes(t, withUnwrittenTags))));
        StringBuilder s = new StringBuilder();
        s.append(t.id).append(' ').append(STATES[state]).append(" producer ").append(t.producerId).append(" epoch ").append(t.epoch);
        if (state != EMPTY) s.append(" partitions ").append(t.partitions);
        s.append(" (value v").append(version);
        if (hasSetter("setClientTransactionVersion")) s.append(", client transaction version ").append(t.clientTv);
        if (withUnwrittenTags) {
            s.append(", previousProducerId ").append(t.previousProducerId).append(" nextProducerId ").append(t.nextProducerId);
            if (hasSetter("setNextProducerEpoch")) s.append(" nextProducerEpoch ").append(t.nextProducerEpoch);
        }
        told.add(s.append(')').toString());
    }

    /** InitProducerId: Empty, partitions and start time cleared. */
    private void init(Txn t) throws Exception {
        t.partitions.clear();
        t.start = -1;
        log(t, EMPTY, false);
    }

    /** AddPartitionsToTxn: Ongoing with the partitions added; the start time set by the first. */
    private void add(Txn t, short clientTv, String topic, Integer... ids) throws Exception {
        if (t.state != ONGOING) t.start = clock + 1000;
        t.clientTv = clientTv;
        t.partitions.computeIfAbsent(topic, x -> new ArrayList<>()).addAll(Arrays.asList(ids));
        log(t, ONGOING, false);
    }

    /** EndTxn: PrepareCommit/PrepareAbort, the epoch bumped for a transactions v2 client. */
    private void prepare(Txn t, boolean commit) throws Exception {
        if (bumps(t)) t.epoch++;
        log(t, commit ? PREPARE_COMMIT : PREPARE_ABORT, false);
    }

    /** The markers written: CompleteCommit/CompleteAbort, no partitions left. */
    private void complete(Txn t) throws Exception {
        t.partitions.clear();
        log(t, t.state == PREPARE_COMMIT ? COMPLETE_COMMIT : COMPLETE_ABORT, false);
    }

    /** Expiration of transactional ids: their tombstones, in one batch. */
    private void expire(Txn... ids) throws Exception {
        clock += 1000;
        List<SimpleRecord> records = new ArrayList<>();
        for (Txn t : ids) {
            records.add(new SimpleRecord(clock, keyBytes(t.id), null));
            told.add(t.id + " tombstone (expired)");
        }
        append(records);
    }

    private void story() throws Exception {
        Txn orders = new Txn("orders-etl", 5000, 0, 60_000);
        Txn payments = new Txn("payments-tx", 6000, 3, 30_000);
        Txn retired = new Txn("retired-job", 7000, 1, 60_000);
        Txn idle = new Txn("idle-client", 7100, 0, 60_000);
        Txn stuck = new Txn("stuck-writer", 8000, 0, 900_000);
        Txn legacy = new Txn("legacy-app", 8500, 2, 60_000);
        short v0 = 0;
        // Coordinator epoch 0, transaction.version 0.
        init(orders);
        init(payments);
        add(orders, v0, "orders", 0);
        init(retired);
        add(payments, v0, "payments", 0, 2);
        add(orders, v0, "orders", 1);
        add(orders, v0, "audit", 0);
        add(retired, v0, "orders", 2);
        prepare(payments, false);
        prepare(orders, true);
        complete(payments);
        complete(orders);
        prepare(retired, true);
        complete(retired);
        init(idle);
        init(stuck);
        add(orders, v0, "orders", 0);
        prepare(orders, true);
        complete(orders);
        // The coordinator fails over (partition leader epoch 1); the cluster
        // now runs the highest transaction.version this release has.
        leaderEpoch = 1;
        clusterTv = transactionVersion == null ? 0 : hasMethod(transactionVersion, "supportsEpochBump") ? 2 : 1;
        short client = (short) (clusterTv == 2 ? 2 : 0);
        notes.add("from offset " + offset + ": partition leader epoch 1 (a coordinator failover), transaction.version "
            + clusterTv + (clusterTv == 1 ? " (3.9 finalizes it only with the unstable metadata.version 4.0-IV0)" : "")
            + " -> TransactionLogValue v" + valueVersion()
            + (client == 2 ? "; orders-etl, payments-tx and stuck-writer are transactions v2 clients (epoch bumped at "
                + "every end), legacy-app is not" : ""));
        add(orders, client, "orders", 0, 1);
        init(legacy);
        add(payments, client, "payments", 0);
        add(legacy, v0, "orders", 3);
        prepare(orders, true);
        add(stuck, client, "orders", 1);
        add(stuck, client, "payments", 1);
        prepare(payments, false);
        complete(orders);
        prepare(legacy, true);
        complete(payments);
        complete(legacy);
        expire(retired, idle);
        if (hasSetter("setPreviousProducerId")) rotation();
    }

    /**
     * A transactions v2 producer whose epoch runs out: the id moves to its
     * next producer id. valueToBytes never writes PreviousProducerId,
     * NextProducerId or NextProducerEpoch; these two records carry them, a
     * deliberate departure so that decoders meet those tagged fields.
     */
    private void rotation() throws Exception {
        Txn r = new Txn("rotating-producer", 9000, 32765, 60_000);
        init(r);
        add(r, (short) 2, "payments", 3);
        r.epoch++;
        r.nextProducerId = 9001;
        r.nextProducerEpoch = 0;
        log(r, PREPARE_COMMIT, true);
        r.previousProducerId = r.producerId;
        r.producerId = r.nextProducerId;
        r.epoch = 0;
        r.nextProducerId = -1;
        r.nextProducerEpoch = -1;
        r.partitions.clear();
        log(r, COMPLETE_COMMIT, true);
        notes.add("rotating-producer's PrepareCommit and CompleteCommit (the last two records) set PreviousProducerId/"
            + "NextProducerId" + (hasSetter("setNextProducerEpoch") ? "/NextProducerEpoch" : "") + " (valid schema; this"
            + " release's TransactionLog.valueToBytes never sets them): a deliberate departure so that decoders meet them");
    }

    private static boolean hasMethod(Class<?> c, String name) {
        for (Method m : c.getMethods()) if (m.getName().equals(name)) return true;
        return false;
    }

    private void run() throws Exception {
        story();
        File caseDir = new File(lab.out, "internal-transaction-state");
        File partDir = new File(caseDir, "__transaction_state-0");
        File log = new File(partDir, String.format("%020d.log", 0));
        // FileRecords appends: a case written before is replaced, not extended.
        Files.deleteIfExists(log.toPath());
        KsegLab.writeLog(log, batches);

        String keyFraming = typePrefixedKey
            ? "MessageUtil.toCoordinatorTypePrefixedBytes (2-byte record type 0, TRANSACTION_LOG, then the key at version 0)"
            : "MessageUtil.toVersionPrefixedBytes(TransactionLogKey.HIGHEST_SUPPORTED_VERSION)";
        ObjectNode view = lab.header("internal-transaction-state", "__transaction_state");
        view.put("writer", "TransactionLog.keyToBytes/valueToBytes (Scala, core) as the lab harness reproduces them with the "
            + "release's generated " + pkg + ".TransactionLogKey/TransactionLogValue: key " + keyFraming
            + "; value MessageUtil.toVersionPrefixedBytes(version, value); one record a batch "
            + "(MemoryRecords.withRecords, no compression, the coordinator's leader epoch), expiration tombstones in one batch");
        view.put("decoding", "key = {version (the 2-byte prefix), data: TransactionLogKeyJsonConverter.write}; value = {version, "
            + "data: TransactionLogValueJsonConverter.write} (TransactionLog.readTxnRecordKey/readTxnRecordValue framing); "
            + "tombstone value = null; transactionState = the name of the value's TransactionStatus");
        view.set("notes", KsegLab.array(notes));
        view.set("recordsWritten", KsegLab.array(told));
        ObjectNode partition = view.putObject("partition");
        partition.put("dir", partDir.getName());
        ObjectNode seg = partition.putArray("segments").addObject();
        seg.put("baseOffset", 0);
        seg.set("log", LogView.read(log, new Reader()));
        addStates(seg.get("log"));
        view.put("logEndOffset", offset);
        lab.finish(caseDir, view, readme(keyFraming));
    }

    /** Each record's transactionState, by the release's TransactionState where it is Java (4.1 on), else by its ids. */
    private void addStates(JsonNode log) throws Exception {
        Method fromId = null;
        try {
            fromId = Class.forName("org.apache.kafka.coordinator.transaction.TransactionState").getMethod("fromId", byte.class);
        } catch (ClassNotFoundException e) {
            // TransactionState is Scala before 4.1
        }
        for (JsonNode b : log.get("batches")) {
            for (JsonNode r : b.get("records")) {
                JsonNode v = r.get("value");
                if (v.isNull()) continue;
                int status = v.get("data").get("transactionStatus").asInt();
                String name = fromId == null ? STATES[status]
                    : (String) fromId.getReturnType().getMethod("stateName").invoke(fromId.invoke(null, (byte) status));
                ((ObjectNode) r).put("transactionState", name);
            }
        }
    }

    private String readme(String keyFraming) throws Exception {
        StringBuilder b = new StringBuilder();
        b.append("internal-transaction-state (release ").append(lab.release).append(", commit ").append(lab.commit).append(")\n\n");
        b.append("The transaction coordinator's __transaction_state-0, written by the lab harness (lab/ in kseg) with this\n");
        b.append("release's own classes compiled from source. The release's writer, TransactionLog.keyToBytes/valueToBytes, is\n");
        b.append("Scala (core), which the lab does not compile; the harness serializes the release's generated\n");
        b.append(pkg).append(".TransactionLogKey/TransactionLogValue as they do:\n");
        b.append("key ").append(keyFraming).append(";\n");
        b.append("value MessageUtil.toVersionPrefixedBytes(version, value), the version as this release chooses it, partitions\n");
        b.append("null when Empty and else grouped by topic (in the order added: Kafka's set has no defined order),\n");
        b.append(hasSetter("setClientTransactionVersion") ? "ClientTransactionVersion set to the client's transaction version;\n" : "");
        b.append("one record a batch as TransactionStateManager.appendTransactionToLog appends it (MemoryRecords.withRecords, no\n");
        b.append("compression, the coordinator's partition leader epoch), expiration tombstones in one batch; FileRecords appends.\n\n");
        b.append("A coherent story: orders-etl commits three transactions (its partition set growing in the first),\n");
        b.append("payments-tx aborts two, retired-job commits and is expired with idle-client (tombstones), legacy-app\n");
        b.append("commits after the failover, stuck-writer is left Ongoing");
        b.append(hasSetter("setPreviousProducerId") ? ", rotating-producer's epoch runs out and it moves to\nproducer id 9001.\n" : ".\n");
        b.append("\nkafka-view.json: Kafka's reading (FileRecords.batches, the generated TransactionLogKey/TransactionLogValue\n");
        b.append("read as TransactionLog.readTxnRecordKey/readTxnRecordValue frame them, their generated JSON converters).\n\nNotes:\n");
        for (String n : notes) b.append("  - ").append(n).append('\n');
        b.append("\nRecords in log order:\n");
        for (int i = 0; i < told.size(); i++) b.append("  ").append(i).append(": ").append(told.get(i)).append('\n');
        return b.toString();
    }

    /** Kafka's reading of a record: the 2-byte prefix, the generated reader, the generated JSON converter. */
    private final class Reader implements LogView.Decoder {
        private ObjectNode read(Class<?> c, ByteBuffer bytes, boolean key) throws Exception {
            ByteBuffer b = bytes.duplicate();
            short prefix = b.getShort();
            short version = key && typePrefixedKey ? 0 : prefix;
            Object message = c.getConstructor(Readable.class, short.class).newInstance(new ByteBufferAccessor(b), version);
            ObjectNode o = KsegLab.JSON.createObjectNode();
            o.put("base64", KsegLab.base64(bytes));
            o.put("version", prefix);
            o.set("data", KsegLab.converterJson(message, version));
            return o;
        }

        @Override
        public JsonNode key(ByteBuffer key, ByteBuffer value) throws Exception {
            return read(keyClass, key, true);
        }

        @Override
        public JsonNode value(ByteBuffer key, ByteBuffer value) throws Exception {
            return value == null ? null : read(valueClass, value, false);
        }
    }
}
