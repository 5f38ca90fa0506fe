import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.server.common.CheckpointFile;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager.IndexType;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.log.EpochEntry;

import io.aiven.kafka.tieredstorage.Chunk;
import io.aiven.kafka.tieredstorage.RemoteStorageManager;
import io.aiven.kafka.tieredstorage.config.RemoteStorageManagerConfig;
import io.aiven.kafka.tieredstorage.manifest.SegmentEncryptionMetadata;
import io.aiven.kafka.tieredstorage.manifest.SegmentIndex;
import io.aiven.kafka.tieredstorage.manifest.SegmentManifest;
import io.aiven.kafka.tieredstorage.manifest.index.ChunkIndex;
import io.aiven.kafka.tieredstorage.manifest.index.FixedSizeChunkIndex;
import io.aiven.kafka.tieredstorage.metadata.SegmentCustomMetadataField;
import io.aiven.kafka.tieredstorage.metadata.SegmentCustomMetadataSerde;
import io.aiven.kafka.tieredstorage.storage.BytesRange;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The lab's Aiven case: Kafka-written segments uploaded by Aiven's own
 * remote storage manager (io.aiven.kafka.tieredstorage.RemoteStorageManager)
 * to its file-system storage backend, under several configurations, and read
 * back by that same code into aiven-view.json.
 *
 * <pre>java AivenCase &lt;out dir&gt; &lt;aiven commit&gt; &lt;corpus dir&gt; &lt;kafka classes label&gt;</pre>
 *
 * Writes &lt;out&gt;/input/ (the uploaded segments' files, as LogSegmentData
 * names them) and one directory per configuration: storage/ (the backend's
 * root, i.e. the object store), rsa/ (the PEM key pair, encrypted cases),
 * aiven-view.json and README.txt.
 */
public final class AivenCase {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final HexFormat HEX = HexFormat.of();
    /** Event time the harness stamps on every metadata record (fixed, so manifests are reproducible). */
    private static final long EVENT_MS = 1_765_000_000_000L;
    private static final int BROKER_ID = 1;
    /** Which lab build's Kafka classes the storage manager ran against. */
    private static String kafkaLabel;

    /** A rolled segment of a corpus partition, uploaded as RemoteLogManager.copyLogSegment would. */
    record Source(String corpusCase, String partitionDir, long baseOffset, long nextBaseOffset, String note) { }

    /** One configuration of the storage manager. */
    record Config(String name, String description, Map<String, String> props, boolean rsa) { }

    /** What copyLogSegmentData was given for one segment. */
    record Upload(Source source, Path dir, RemoteLogSegmentMetadata metadata, LogSegmentData data, byte[] leaderEpochs) {
        /**
         * The LogSegmentData for one copy: the storage manager reads the leader-epoch
         * ByteBuffer to its end, so each copy gets its own buffer, as each broker copy does.
         */
        LogSegmentData fresh() {
            return new LogSegmentData(data.logSegment(), data.offsetIndex(), data.timeIndex(), data.transactionIndex(),
                data.producerSnapshotIndex(), ByteBuffer.wrap(leaderEpochs));
        }
    }

    static final List<Source> SOURCES = List.of(
        new Source("codec-zstd", "codec-0", 0, 192, "zstd-compressed batches (producer compression)"),
        new Source("idempotent", "idem-0", 0, 177, "uncompressed batches, idempotent producers, producer snapshot with state"),
        new Source("transactional", "txn-0", 0, 136, "uncompressed transactional batches and control batches, with a .txnindex"),
        new Source("multi-partition-logdir", "logdir/payments-0", 34, 69,
            "a middle segment whose offsets span leader epochs 0 and 1 (epoch 1 from offset 38)"),
        new Source("retention", "ret-0", 0, 6, "a segment smaller than one chunk, with an empty offset index")
    );

    static List<Config> configs() {
        final Map<String, String> base = Map.of(
            "storage.backend.class", "io.aiven.kafka.tieredstorage.storage.filesystem.FileSystemStorage");
        final List<Config> out = new ArrayList<>();
        out.add(new Config("aiven-plain",
            "chunk.size 4096, no compression, no encryption: FixedSizeChunkIndex, objects equal to the inputs",
            with(base, "chunk.size", "4096"), false));
        out.add(new Config("aiven-zstd",
            "chunk.size 4096, compression.enabled (every chunk its own zstd frame): VariableSizeChunkIndex",
            with(base, "chunk.size", "4096", "compression.enabled", "true"), false));
        out.add(new Config("aiven-encrypted",
            "chunk.size 4096, encryption.enabled (AES-256-GCM per chunk, data key wrapped with the RSA key in rsa/):"
                + " FixedSizeChunkIndex",
            with(base, "chunk.size", "4096", "encryption.enabled", "true"), true));
        out.add(new Config("aiven-zstd-encrypted-prefix",
            "chunk.size 3000, compression and encryption, key.prefix 'tiered/cluster-a/' with key.prefix.mask,"
                + " custom.metadata.fields.include REMOTE_SIZE,OBJECT_PREFIX,OBJECT_KEY: VariableSizeChunkIndex",
            with(base, "chunk.size", "3000", "compression.enabled", "true", "encryption.enabled", "true",
                "key.prefix", "tiered/cluster-a/", "key.prefix.mask", "true",
                "custom.metadata.fields.include", "REMOTE_SIZE,OBJECT_PREFIX,OBJECT_KEY"), true));
        out.add(new Config("aiven-heuristic",
            "chunk.size 8192, compression.enabled with compression.heuristic.enabled: a segment whose first batch"
                + " is already compressed is stored uncompressed (manifest compression false), the others compressed",
            with(base, "chunk.size", "8192", "compression.enabled", "true", "compression.heuristic.enabled", "true"),
            false));
        return out;
    }

    private static Map<String, String> with(final Map<String, String> base, final String... kv) {
        final Map<String, String> m = new TreeMap<>(base);
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    public static void main(final String[] args) throws Exception {
        final Path out = Path.of(args[0]);
        final String commit = args[1];
        final Path corpus = Path.of(args[2]);
        kafkaLabel = args[3];
        final List<Upload> uploads = new ArrayList<>();
        int n = 0;
        for (final Source s : SOURCES) {
            uploads.add(prepare(corpus, out.resolve("input"), s, n++));
        }
        for (final Config c : configs()) {
            writeCase(out.resolve(c.name()), c, uploads, commit);
        }
    }

    /** Copies one segment's files into input/ and builds the metadata and LogSegmentData Kafka would pass. */
    static Upload prepare(final Path corpus, final Path inputRoot, final Source s, final int n) throws Exception {
        final Path from = corpus.resolve(s.corpusCase()).resolve(s.partitionDir());
        final String pdir = Path.of(s.partitionDir()).getFileName().toString();
        final Path dir = inputRoot.resolve(pdir);
        Files.createDirectories(dir);
        final String base = String.format("%020d", s.baseOffset());
        final String next = String.format("%020d", s.nextBaseOffset());
        for (final String f : List.of(base + ".log", base + ".index", base + ".timeindex", base + ".txnindex",
            next + ".snapshot", "leader-epoch-checkpoint", "partition.metadata")) {
            if (Files.exists(from.resolve(f))) {
                Files.copy(from.resolve(f), dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        final int dash = pdir.lastIndexOf('-');
        final TopicPartition tp = new TopicPartition(pdir.substring(0, dash), Integer.parseInt(pdir.substring(dash + 1)));
        final Uuid topicId = topicId(dir.resolve("partition.metadata"));

        // RemoteLogManager.copyLogSegment: the epochs of [base, next) for the metadata, and the
        // checkpoint text of every epoch below next (epochEntriesInRange(-1, next)) as the leader-epoch index.
        final List<EpochEntry> all = new LeaderEpochCheckpointFile(dir.resolve("leader-epoch-checkpoint").toFile(), null).read();
        final List<EpochEntry> upToNext = all.stream().filter(e -> e.startOffset() < s.nextBaseOffset()).collect(Collectors.toList());
        final Map<Integer, Long> segmentEpochs = new TreeMap<>();
        for (int i = 0; i < upToNext.size(); i++) {
            final EpochEntry e = upToNext.get(i);
            final boolean nextStartsAtOrBelowBase = i + 1 < upToNext.size() && upToNext.get(i + 1).startOffset() <= s.baseOffset();
            if (!nextStartsAtOrBelowBase) {
                segmentEpochs.put(e.epoch(), Math.max(e.startOffset(), s.baseOffset()));
            }
        }
        final byte[] leaderEpochs = checkpointBytes(upToNext);

        final Path log = dir.resolve(base + ".log");
        long maxTimestamp = -1;
        try (FileRecords records = FileRecords.open(log.toFile(), false)) {
            for (final FileChannelRecordBatch b : records.batches()) {
                maxTimestamp = Math.max(maxTimestamp, b.maxTimestamp());
            }
        }
        final Path txn = dir.resolve(base + ".txnindex");
        final boolean txnEmpty = !Files.exists(txn) || Files.size(txn) == 0;
        final Uuid segmentId = new Uuid(0x6b7365672d6c6162L, 0x4169766e00000000L + n);
        final RemoteLogSegmentMetadata md = new RemoteLogSegmentMetadata(
            new RemoteLogSegmentId(new TopicIdPartition(topicId, tp), segmentId),
            s.baseOffset(), s.nextBaseOffset() - 1, maxTimestamp, BROKER_ID, EVENT_MS,
            (int) Files.size(log), segmentEpochs, txnEmpty);
        final LogSegmentData data = new LogSegmentData(log, dir.resolve(base + ".index"), dir.resolve(base + ".timeindex"),
            Files.exists(txn) ? Optional.of(txn) : Optional.empty(), dir.resolve(next + ".snapshot"),
            ByteBuffer.wrap(leaderEpochs));
        return new Upload(s, dir, md, data, leaderEpochs);
    }

    private static Uuid topicId(final Path partitionMetadata) throws Exception {
        for (final String line : Files.readAllLines(partitionMetadata)) {
            if (line.startsWith("topic_id: ")) {
                return Uuid.fromString(line.substring("topic_id: ".length()).trim());
            }
        }
        throw new IllegalStateException("no topic_id in " + partitionMetadata);
    }

    /** RemoteLogManager.epochEntriesAsByteBuffer: the entries as a version-0 checkpoint text. */
    private static byte[] checkpointBytes(final List<EpochEntry> entries) throws Exception {
        final ByteArrayOutputStream stream = new ByteArrayOutputStream();
        try (BufferedWriter writer = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8))) {
            new CheckpointFile.CheckpointWriteBuffer<>(writer, 0, LeaderEpochCheckpointFile.FORMATTER).write(entries);
            writer.flush();
        }
        return stream.toByteArray();
    }

    static void writeCase(final Path dir, final Config c, final List<Upload> uploads, final String commit) throws Exception {
        final Path storage = dir.resolve("storage");
        Files.createDirectories(storage);
        final Map<String, Object> props = new TreeMap<>(c.props());
        props.put("storage.root", storage.toString());
        if (c.rsa()) {
            props.putAll(rsaKeys(dir.resolve("rsa")));
        }
        final ObjectNode view = JSON.createObjectNode();
        view.put("aivenCommit", commit);
        view.put("kafkaClasses", kafkaLabel);
        view.put("description", c.description());
        final ObjectNode cfg = view.putObject("config");
        props.forEach((k, v) -> cfg.put(k, relative(dir, v.toString())));

        final RemoteStorageManager rsm = new RemoteStorageManager();
        rsm.configure(props);
        final RemoteStorageManagerConfig config = new RemoteStorageManagerConfig(props);
        final ObjectMapper aivenMapper = aivenMapper(config);
        final ArrayNode segs = view.putArray("segments");
        for (final Upload u : uploads) {
            final List<String> before = listObjects(storage);
            final Optional<RemoteLogSegmentMetadata.CustomMetadata> custom = rsm.copyLogSegmentData(u.metadata(), u.fresh());
            final List<String> written = listObjects(storage);
            written.removeAll(before);
            // What the broker passes to fetches after COPY_SEGMENT_FINISHED: the metadata with Aiven's custom metadata.
            final RemoteLogSegmentMetadata finished = u.metadata().createWithUpdates(new RemoteLogSegmentMetadataUpdate(
                u.metadata().remoteLogSegmentId(), EVENT_MS + 1, custom, RemoteLogSegmentState.COPY_SEGMENT_FINISHED, BROKER_ID));
            segs.add(segmentView(dir, storage, u, written, custom, finished, rsm, aivenMapper));
        }
        rsm.close();
        Files.writeString(dir.resolve("aiven-view.json"), JSON.writeValueAsString(view) + "\n");
        Files.writeString(dir.resolve("README.txt"), readme(c, uploads, commit));
    }

    private static ObjectNode segmentView(final Path dir, final Path storage, final Upload u, final List<String> written,
                                          final Optional<RemoteLogSegmentMetadata.CustomMetadata> custom,
                                          final RemoteLogSegmentMetadata finished, final RemoteStorageManager rsm,
                                          final ObjectMapper aivenMapper) throws Exception {
        final RemoteLogSegmentMetadata md = u.metadata();
        final ObjectNode s = JSON.createObjectNode();
        s.put("source", u.source().corpusCase() + "/" + u.source().partitionDir() + " (" + u.source().note() + ")");
        final ObjectNode in = s.putObject("input");
        in.put("log", relative(dir, u.data().logSegment().toString()));
        in.put("offsetIndex", relative(dir, u.data().offsetIndex().toString()));
        in.put("timeIndex", relative(dir, u.data().timeIndex().toString()));
        in.put("transactionIndex", u.data().transactionIndex().map(p -> relative(dir, p.toString())).orElse(null));
        in.put("producerSnapshot", relative(dir, u.data().producerSnapshotIndex().toString()));
        in.put("leaderEpochIndexText", new String(u.leaderEpochs(), StandardCharsets.UTF_8));
        in.put("logSha256", sha256(Files.readAllBytes(u.data().logSegment())));
        final ObjectNode m = s.putObject("metadata");
        final TopicIdPartition tip = md.remoteLogSegmentId().topicIdPartition();
        m.put("topic", tip.topic());
        m.put("partition", tip.partition());
        m.put("topicId", tip.topicId().toString());
        m.put("segmentId", md.remoteLogSegmentId().id().toString());
        m.put("startOffset", md.startOffset());
        m.put("endOffset", md.endOffset());
        m.put("maxTimestampMs", md.maxTimestampMs());
        m.put("brokerId", md.brokerId());
        m.put("eventTimestampMs", md.eventTimestampMs());
        m.put("segmentSizeInBytes", md.segmentSizeInBytes());
        final ObjectNode epochs = m.putObject("segmentLeaderEpochs");
        md.segmentLeaderEpochs().forEach((e, o) -> epochs.put(e.toString(), o));
        m.put("txnIdxEmpty", md.isTxnIdxEmpty());

        final ArrayNode objs = s.putArray("objects");
        String manifestKey = null;
        for (final String key : written) {
            final byte[] bytes = Files.readAllBytes(storage.resolve(key));
            final ObjectNode o = objs.addObject();
            o.put("key", key);
            o.put("size", bytes.length);
            o.put("sha256", sha256(bytes));
            if (key.endsWith(".rsm-manifest")) {
                manifestKey = key;
            }
        }
        if (custom.isPresent()) {
            final byte[] cm = custom.get().value();
            final ObjectNode c = s.putObject("customMetadata");
            c.put("hex", HEX.formatHex(cm));
            final NavigableMap<Integer, Object> fields = new SegmentCustomMetadataSerde().deserialize(cm);
            final ObjectNode f = c.putObject("fields");
            for (final SegmentCustomMetadataField field : SegmentCustomMetadataField.values()) {
                if (fields.containsKey(field.index())) {
                    f.put(field.index() + " " + field.name(), String.valueOf(fields.get(field.index())));
                }
            }
        } else {
            s.putNull("customMetadata");
        }

        final String manifestText = Files.readString(storage.resolve(manifestKey));
        s.put("manifestText", manifestText);
        s.set("manifest", JSON.readTree(manifestText));
        final SegmentManifest manifest = aivenMapper.readValue(manifestText, SegmentManifest.class);
        s.put("compression", manifest.compression());
        final Optional<SegmentEncryptionMetadata> enc = manifest.encryption();
        if (enc.isPresent()) {
            final ObjectNode e = s.putObject("encryption");
            e.put("ivSize", enc.get().ivSize());
            e.put("dataKeyHex", HEX.formatHex(enc.get().dataKey().getEncoded()));
            e.put("aadHex", HEX.formatHex(enc.get().aad()));
        } else {
            s.putNull("encryption");
        }
        final ChunkIndex ci = manifest.chunkIndex();
        s.put("chunkIndexType", ci instanceof FixedSizeChunkIndex ? "fixed" : "variable");
        final ArrayNode chunks = s.putArray("chunks");
        for (final Chunk ch : ci.chunks()) {
            final ObjectNode o = chunks.addObject();
            o.put("id", ch.id);
            o.put("originalPosition", ch.originalPosition);
            o.put("originalSize", ch.originalSize);
            o.put("transformedPosition", ch.transformedPosition);
            o.put("transformedSize", ch.transformedSize);
        }
        final ObjectNode idx = s.putObject("segmentIndexes");
        for (final IndexType t : IndexType.values()) {
            final SegmentIndex si = manifest.segmentIndexes().segmentIndex(t);
            if (si == null) {
                idx.putNull(t.name());
            } else {
                idx.putObject(t.name()).put("position", si.position()).put("size", si.size());
            }
        }

        final byte[] original = Files.readAllBytes(u.data().logSegment());
        final ArrayNode fetches = s.putArray("fetches");
        for (final int[] r : ranges(u.data().logSegment(), original.length, ci)) {
            final ObjectNode f = fetches.addObject();
            f.put("start", r[0]);
            f.put("end", r[1]);
            final byte[] got;
            try (InputStream is = rsm.fetchLogSegment(finished, r[0], r[1])) {
                got = is.readAllBytes();
            }
            f.put("length", got.length);
            f.put("sha256", sha256(got));
            if (got.length <= 64) {
                f.put("hex", HEX.formatHex(got));
            }
            final int last = Math.min(r[1], md.segmentSizeInBytes() - 1);
            final ArrayNode ids = f.putArray("chunks");
            ci.chunksForRange(BytesRange.of(r[0], last)).forEach(ch -> ids.add(ch.id));
            f.put("equalsInputSlice", Arrays.equals(got,
                Arrays.copyOfRange(original, r[0], Math.min(r[1] + 1, original.length))));
        }
        final ObjectNode fi = s.putObject("fetchIndex");
        for (final IndexType t : IndexType.values()) {
            final ObjectNode o = fi.putObject(t.name());
            try (InputStream is = rsm.fetchIndex(finished, t)) {
                final byte[] got = is.readAllBytes();
                o.put("length", got.length);
                o.put("sha256", sha256(got));
                final byte[] input = inputIndex(u, t);
                o.put("equalsInput", input != null && Arrays.equals(got, input));
            } catch (final Exception e) {
                o.put("error", e.getClass().getName());
            }
        }
        return s;
    }

    private static byte[] inputIndex(final Upload u, final IndexType t) throws Exception {
        switch (t) {
            case OFFSET: return Files.readAllBytes(u.data().offsetIndex());
            case TIMESTAMP: return Files.readAllBytes(u.data().timeIndex());
            case PRODUCER_SNAPSHOT: return Files.readAllBytes(u.data().producerSnapshotIndex());
            case LEADER_EPOCH: return u.leaderEpochs();
            case TRANSACTION: return u.data().transactionIndex().isPresent()
                ? Files.readAllBytes(u.data().transactionIndex().get()) : null;
            default: throw new IllegalArgumentException();
        }
    }

    /** Byte ranges to fetch: whole, first byte, chunk seams, whole batches, the tail, past the end. */
    private static List<int[]> ranges(final Path log, final int size, final ChunkIndex ci) throws Exception {
        final List<int[]> r = new ArrayList<>();
        r.add(new int[] {0, size - 1});
        r.add(new int[] {0, 0});
        r.add(new int[] {0, 60});
        final List<Chunk> chunks = ci.chunks();
        if (chunks.size() > 1) {
            final int seam = chunks.get(1).originalPosition;
            r.add(new int[] {seam - 1, seam});
            r.add(new int[] {seam - 17, seam + 16});
            r.add(new int[] {100, chunks.get(chunks.size() - 1).originalPosition + 5});
        }
        try (FileRecords records = FileRecords.open(log.toFile(), false)) {
            int k = 0;
            for (final FileChannelRecordBatch b : records.batches()) {
                if (k == 1 || k == 7 || k == 20) {
                    r.add(new int[] {b.position(), b.position() + b.sizeInBytes() - 1});
                    r.add(new int[] {b.position(), size - 1});
                }
                k++;
            }
        }
        r.add(new int[] {size - 10, size - 1});
        r.add(new int[] {size - 1, size + 100});
        return r;
    }

    /** Aiven's own manifest mapper (RemoteStorageManagerUtils, package-private), as the fetch path builds it. */
    private static ObjectMapper aivenMapper(final RemoteStorageManagerConfig config) throws Exception {
        final Class<?> utils = Class.forName("io.aiven.kafka.tieredstorage.RemoteStorageManagerUtils");
        final Method rsa = utils.getDeclaredMethod("getRsaEncryptionProvider", RemoteStorageManagerConfig.class);
        rsa.setAccessible(true);
        final Object provider = rsa.invoke(null, config);
        final Class<?> providerClass = Class.forName("io.aiven.kafka.tieredstorage.security.RsaEncryptionProvider");
        final Method mapper = utils.getDeclaredMethod("getObjectMapper", RemoteStorageManagerConfig.class, providerClass);
        mapper.setAccessible(true);
        return (ObjectMapper) mapper.invoke(null, config, provider);
    }

    /** A fresh RSA-2048 key pair as PEM (X.509 public, PKCS#8 private), and the configs naming it. */
    private static Map<String, String> rsaKeys(final Path dir) throws Exception {
        Files.createDirectories(dir);
        final KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        final KeyPair kp = g.generateKeyPair();
        final Path pub = dir.resolve("public.pem");
        final Path priv = dir.resolve("private.pem");
        Files.writeString(pub, pem("PUBLIC KEY", kp.getPublic().getEncoded()));
        Files.writeString(priv, pem("PRIVATE KEY", kp.getPrivate().getEncoded()));
        final String id = "kseg-lab-key";
        return Map.of(
            "encryption.key.pair.id", id,
            "encryption.key.pairs", id,
            "encryption.key.pairs." + id + ".public.key.file", pub.toString(),
            "encryption.key.pairs." + id + ".private.key.file", priv.toString());
    }

    private static String pem(final String type, final byte[] der) {
        return "-----BEGIN " + type + "-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
            + "\n-----END " + type + "-----\n";
    }

    private static List<String> listObjects(final Path storage) throws Exception {
        try (Stream<Path> s = Files.walk(storage)) {
            return s.filter(Files::isRegularFile).map(p -> storage.relativize(p).toString().replace(File.separatorChar, '/'))
                .sorted().collect(Collectors.toCollection(ArrayList::new));
        }
    }

    private static String relative(final Path dir, final String value) {
        final Path caseRoot = dir.getParent();
        if (value.startsWith(dir.toString() + "/")) {
            return value.substring(dir.toString().length() + 1);
        }
        if (value.startsWith(caseRoot.toString() + "/")) {
            return "../" + value.substring(caseRoot.toString().length() + 1);
        }
        return value;
    }

    private static String sha256(final byte[] b) throws Exception {
        return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private static String readme(final Config c, final List<Upload> uploads, final String commit) {
        final StringBuilder b = new StringBuilder();
        b.append(c.name()).append("\n\n");
        b.append("Kafka-written segments uploaded by Aiven's tiered-storage-for-apache-kafka RemoteStorageManager\n");
        b.append("(Aiven-Open/tiered-storage-for-apache-kafka @").append(commit).append(", Kafka classes ")
            .append(kafkaLabel).append(")\n");
        b.append("with its FileSystemStorage backend rooted at storage/ (so storage/ is the object store, keys as paths).\n\n");
        b.append("Configuration: ").append(c.description()).append(".\n");
        b.append("The full config is in aiven-view.json (paths relative to this directory).\n\n");
        b.append("Segments (inputs in ../input/, as LogSegmentData names them; metadata as RemoteLogManager.copyLogSegment builds it):\n");
        for (final Upload u : uploads) {
            b.append("  ").append(u.source().corpusCase()).append('/').append(u.source().partitionDir())
                .append(" offsets ").append(u.metadata().startOffset()).append("..").append(u.metadata().endOffset())
                .append(": ").append(u.source().note()).append('\n');
        }
        if (c.rsa()) {
            b.append("\nEncrypted: rsa/public.pem and rsa/private.pem are the key pair 'kseg-lab-key' the manifest's\n");
            b.append("dataKey is wrapped with (RSA/NONE/OAEPWithSHA3-512AndMGF1Padding, BouncyCastle). Without the\n");
            b.append("private key the .log and .indexes objects cannot be read. aiven-view.json gives the unwrapped\n");
            b.append("data key and AAD as Aiven's own manifest reader returned them.\n");
        }
        b.append("\naiven-view.json, per segment, is what Aiven's own code wrote and reads back: the object keys written\n");
        b.append("(a listing of storage/), the manifest as stored, the chunk index as Aiven's ChunkIndex reports it,\n");
        b.append("fetchLogSegment(metadata, start, end) for several ranges (sha256, length, hex when short; the chunk ids\n");
        b.append("ChunkIndex.chunksForRange names) and fetchIndex of each index type (sha256, length, equal to the input).\n");
        b.append("Fetches are given the COPY_SEGMENT_FINISHED metadata carrying the custom metadata the copy returned.\n");
        return b.toString();
    }
}
