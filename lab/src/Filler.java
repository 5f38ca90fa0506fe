import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.Uuid;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Fills one of Kafka's generated message objects for one version: every
 * field the schema gives that version is set through the generated setter,
 * with values from a seeded random source. Variant 1 sets every field that
 * is nullable at that version to null, so both forms occur.
 */
final class Filler {
    private final Random random;
    private final int variant;
    private final Map<String, JsonNode> common = new HashMap<>();
    private int counter;
    /** Values for named fields (lower-case names), replacing the random ones (e.g. a protocol type). */
    final Map<String, Object> fixed = new HashMap<>();

    Filler(long seed, int variant) {
        this.random = new Random(seed);
        this.variant = variant;
    }

    /** Fills `message` (a generated class) from its schema at `version`. */
    void fill(Object message, JsonNode schema, int version) throws Exception {
        common.clear();
        JsonNode structs = schema.get("commonStructs");
        if (structs != null) for (JsonNode s : structs) common.put(s.get("name").asText(), s);
        fillFields(message, message.getClass(), schema.get("fields"), version, 0);
    }

    private void fillFields(Object target, Class<?> top, JsonNode fields, int version, int depth) throws Exception {
        if (fields == null) return;
        for (JsonNode f : fields) {
            if (!Schemas.contains(Schemas.text(f, "versions"), version)) continue;
            String name = f.get("name").asText();
            Method setter = setter(target.getClass(), name);
            if (setter == null) throw new IllegalStateException("no setter for " + name + " on " + target.getClass());
            boolean nullable = Schemas.contains(Schemas.text(f, "nullableVersions"), version);
            Object value;
            if (variant == 1 && nullable) {
                value = null;
            } else if (fixed.containsKey(name.toLowerCase())) {
                value = fixed.get(name.toLowerCase());
            } else {
                value = make(f, setter.getParameterTypes()[0], setter.getGenericParameterTypes()[0], top, version, depth);
            }
            setter.invoke(target, value);
        }
    }

    private static Method setter(Class<?> c, String field) {
        String want = "set" + Character.toUpperCase(field.charAt(0)) + field.substring(1);
        for (Method m : c.getMethods()) {
            if (m.getName().equals(want) && m.getParameterCount() == 1) return m;
        }
        return null;
    }

    private Object make(JsonNode f, Class<?> param, Type generic, Class<?> top, int version, int depth) throws Exception {
        String type = f.get("type").asText();
        if (type.startsWith("[]")) {
            String element = type.substring(2);
            Collection<Object> out = param.isInterface() ? new ArrayList<>() : newCollection(param);
            int n = depth >= 2 ? 1 : 2;
            Class<?> elementClass = null;
            if (generic instanceof ParameterizedType) {
                Type t = ((ParameterizedType) generic).getActualTypeArguments()[0];
                if (t instanceof Class) elementClass = (Class<?>) t;
            }
            for (int i = 0; i < n; i++) {
                if (isPrimitive(element)) {
                    out.add(primitive(element, elementClass, f));
                } else {
                    out.add(struct(element, f, top, version, depth + 1));
                }
            }
            return out;
        }
        if (isPrimitive(type)) return primitive(type, param, f);
        return struct(type, f, top, version, depth + 1);
    }

    @SuppressWarnings("unchecked")
    private static Collection<Object> newCollection(Class<?> c) throws Exception {
        return (Collection<Object>) c.getConstructor().newInstance();
    }

    private Object struct(String name, JsonNode f, Class<?> top, int version, int depth) throws Exception {
        Class<?> c = Class.forName(top.getName() + "$" + name);
        Object o = c.getConstructor().newInstance();
        JsonNode fields = f.has("fields") ? f.get("fields") : common.get(name).get("fields");
        fillFields(o, top, fields, version, depth);
        return o;
    }

    private static boolean isPrimitive(String t) {
        switch (t) {
            case "int8": case "int16": case "uint16": case "int32": case "uint32": case "int64":
            case "float64": case "bool": case "string": case "bytes": case "uuid":
                return true;
            default:
                return false;
        }
    }

    private Object primitive(String t, Class<?> param, JsonNode f) {
        counter++;
        switch (t) {
            case "int8": return (byte) (random.nextInt(256) - 128);
            case "int16": return (short) (random.nextInt(2000) - 2);
            case "uint16": return random.nextInt(65536);
            case "int32": return random.nextInt(300000) - 10;
            case "uint32": return (long) random.nextInt(Integer.MAX_VALUE) * 2 + random.nextInt(2);
            case "int64": return random.nextBoolean() ? 1733220000000L + random.nextInt(1_000_000_000) : (long) random.nextInt(100000) - 1;
            case "float64": return random.nextInt(1000) / 8.0;
            case "bool": return random.nextBoolean();
            case "string": {
                String n = f.get("name").asText();
                return "acme-" + Character.toLowerCase(n.charAt(0)) + n.substring(1) + "-" + counter;
            }
            case "bytes": {
                byte[] b = new byte[1 + random.nextInt(12)];
                random.nextBytes(b);
                return param == ByteBuffer.class ? ByteBuffer.wrap(b) : b;
            }
            case "uuid": return new Uuid(random.nextLong(), random.nextLong());
            default: throw new IllegalArgumentException(t);
        }
    }
}
