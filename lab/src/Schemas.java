import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** A release's message schema files, as read from its source tree (the lab's own reader). */
final class Schemas {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(JsonParser.Feature.ALLOW_COMMENTS);

    private Schemas() { }

    /** Every schema file of a directory, by message name. */
    static TreeMap<String, JsonNode> load(File dir) throws IOException {
        TreeMap<String, JsonNode> out = new TreeMap<>();
        File[] files = dir.listFiles((d, n) -> n.endsWith(".json"));
        if (files == null) return out;
        for (File f : files) {
            JsonNode node = MAPPER.readTree(f);
            out.put(node.get("name").asText(), node);
        }
        return out;
    }

    /** Whether a versions string ("0+", "1-3", "2", "none") includes a version. */
    static boolean contains(String versions, int v) {
        if (versions == null || versions.isEmpty() || versions.equals("none")) return false;
        if (versions.endsWith("+")) return v >= Integer.parseInt(versions.substring(0, versions.length() - 1));
        int dash = versions.indexOf('-');
        if (dash > 0) {
            return v >= Integer.parseInt(versions.substring(0, dash)) && v <= Integer.parseInt(versions.substring(dash + 1));
        }
        return v == Integer.parseInt(versions);
    }

    /** The versions a schema's validVersions names, lowest first. */
    static List<Integer> versions(JsonNode schema) {
        String s = schema.get("validVersions").asText();
        List<Integer> out = new ArrayList<>();
        for (int v = 0; v <= 64; v++) if (contains(s, v)) out.add(v);
        return out;
    }

    /** A schema field's text member, or null. */
    static String text(JsonNode field, String name) {
        JsonNode n = field.get(name);
        return n == null ? null : n.asText();
    }
}
