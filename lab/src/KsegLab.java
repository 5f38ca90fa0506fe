import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.server.common.ApiMessageAndVersion;

import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The lab's harness: writes one release's internal-topic cases with that
 * release's own classes (generated messages, serdes, MemoryRecords,
 * FileRecords), and beside each Kafka's own reading of the files it wrote
 * (kafka-view.json), in the shape of ../shared/corpus's internal-* cases.
 *
 * Usage: KsegLab <kafka source tree> <out dir> <release> <commit>
 */
public final class KsegLab {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    static final long BASE_TIME = 1733220000000L;

    final File src;
    final File out;
    final String release;
    final String commit;

    KsegLab(File src, File out, String release, String commit) {
        this.src = src;
        this.out = out;
        this.release = release;
        this.commit = commit;
    }

    /** The group coordinator's record serde, as releases name it (4.0 on, 3.8-3.9, 3.6-3.7). */
    static final String[] GROUP_SERDES = {"org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde",
        "org.apache.kafka.coordinator.group.CoordinatorRecordSerde", "org.apache.kafka.coordinator.group.RecordSerde"};

    public static void main(String[] args) throws Exception {
        KsegLab lab = new KsegLab(new File(args[0]), new File(args[1]), args[2], args[3]);
        ConsumerProtocolBytes.clientSchemas = Schemas.load(lab.schemaDir("clients", "common/message"));
        new CoordinatorCase(lab, "consumer-offsets", "__consumer_offsets", "group-coordinator",
            "org.apache.kafka.coordinator.group.generated",
            GROUP_SERDES).write();
        if (new File(lab.src, "share-coordinator/src/main/resources/common/message").isDirectory()) {
            new CoordinatorCase(lab, "share-group-state", "__share_group_state", "share-coordinator",
                "org.apache.kafka.coordinator.share.generated",
                new String[] {"org.apache.kafka.coordinator.share.ShareCoordinatorRecordSerde"}).write();
        }
        new MetadataCase(lab).write();
        try {
            Class.forName("DataCase").getMethod("write", KsegLab.class).invoke(null, lab);
        } catch (ClassNotFoundException e) {
            System.out.println("no data partition case: this release's LogSegment was not compiled");
        }
        try {
            Class.forName("RemoteCase").getMethod("write", KsegLab.class).invoke(null, lab);
        } catch (ClassNotFoundException e) {
            System.out.println("no remote log metadata case: this release has no tiered storage");
        }
        TxnCase.write(lab);
        GroupsCase.write(lab);
    }

    // ---- shared pieces ----

    /** The generated message class for a schema name in a package. */
    static ApiMessage newMessage(String pkg, String name) throws Exception {
        return (ApiMessage) Class.forName(pkg + "." + name).getConstructor().newInstance();
    }

    /** Kafka's generated JSON converter's output for a message at a version. */
    static JsonNode converterJson(Object message, int version) throws Exception {
        Class<?> c = Class.forName(message.getClass().getName() + "JsonConverter");
        Method write = c.getMethod("write", message.getClass(), short.class);
        return (JsonNode) write.invoke(null, message, (short) version);
    }

    /** Compression NONE, as the release spells it (Compression.NONE from 3.8, CompressionType.NONE before). */
    static Object[] noneCompression(Class<?> type) throws Exception {
        Field f = type.getField("NONE");
        return new Object[] {f.get(null)};
    }

    /** One batch of records at `baseOffset`, by MemoryRecords.withRecords(long, compression, SimpleRecord...). */
    static MemoryRecords batch(long baseOffset, List<SimpleRecord> records) throws Exception {
        for (Method m : MemoryRecords.class.getMethods()) {
            Class<?>[] p = m.getParameterTypes();
            if (m.getName().equals("withRecords") && p.length == 3 && p[0] == long.class && p[2] == SimpleRecord[].class) {
                return (MemoryRecords) m.invoke(null, baseOffset, noneCompression(p[1])[0],
                    records.toArray(new SimpleRecord[0]));
            }
        }
        throw new IllegalStateException("no MemoryRecords.withRecords(long, compression, SimpleRecord...)");
    }

    /** A control batch by MemoryRecords.<method>(offset, timestamp, leaderEpoch, buffer, message), or null if the release has none. */
    static MemoryRecords controlBatch(String method, long offset, long timestamp, int epoch, ApiMessage message) throws Exception {
        for (Method m : MemoryRecords.class.getMethods()) {
            if (m.getName().equals(method) && m.getParameterCount() == 5) {
                return (MemoryRecords) m.invoke(null, offset, timestamp, epoch, ByteBuffer.allocate(64 * 1024), message);
            }
        }
        return null;
    }

    /** The message class a control-batch method takes, or null if the release has no such method. */
    static Class<?> controlMessageClass(String method) {
        for (Method m : MemoryRecords.class.getMethods()) {
            if (m.getName().equals(method) && m.getParameterCount() == 5) return m.getParameterTypes()[4];
        }
        return null;
    }

    /** Appends batches to a new segment file through FileRecords, flushed and closed. */
    static void writeLog(File file, List<MemoryRecords> batches) throws Exception {
        file.getParentFile().mkdirs();
        try (FileRecords records = FileRecords.open(file)) {
            for (MemoryRecords b : batches) records.append(b);
            records.flush();
        }
    }

    static String base64(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] bytes = new byte[d.remaining()];
        d.get(bytes);
        return java.util.Base64.getEncoder().encodeToString(bytes);
    }

    static ApiMessageAndVersion mav(ApiMessage m, int v) {
        return new ApiMessageAndVersion(m, (short) v);
    }

    /** A schema directory of the source tree. */
    File schemaDir(String module, String dir) {
        return new File(src, module + "/src/main/resources/" + dir);
    }

    /** Writes a case's README.txt and kafka-view.json. */
    void finish(File caseDir, ObjectNode view, String readme) throws Exception {
        JSON.writeValue(new File(caseDir, "kafka-view.json"), view);
        Files.write(new File(caseDir, "README.txt").toPath(), readme.getBytes(StandardCharsets.UTF_8));
        System.out.println("wrote " + caseDir);
    }

    ObjectNode header(String name, String topic) {
        ObjectNode view = JSON.createObjectNode();
        view.put("case", name);
        view.put("release", release);
        view.put("kafkaCommit", commit);
        view.put("topic", topic);
        view.put("partitionId", 0);
        return view;
    }

    static Constructor<?> anyConstructor(Class<?> c, int params) {
        for (Constructor<?> k : c.getConstructors()) if (k.getParameterCount() == params) return k;
        return null;
    }

    static Method staticMethod(Class<?> c, String name, int params) {
        for (Method m : c.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == params && Modifier.isStatic(m.getModifiers())) return m;
        }
        return null;
    }

    static Map<String, JsonNode> withType(Map<String, JsonNode> schemas, String type) {
        Map<String, JsonNode> out = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : schemas.entrySet()) {
            if (type.equals(Schemas.text(e.getValue(), "type"))) out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    static List<String> list(Iterable<String> it) {
        List<String> out = new ArrayList<>();
        it.forEach(out::add);
        return out;
    }

    static ArrayNode array(List<String> items) {
        ArrayNode a = JSON.createArrayNode();
        items.forEach(a::add);
        return a;
    }
}
