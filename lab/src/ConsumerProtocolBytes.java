import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Classic consumer groups' member bytes: written as the consumer protocol's
 * generated ConsumerProtocolSubscription/Assignment messages (2-byte
 * version prefix, MessageUtil), and read back in place of the bytes for
 * groups of protocol type "consumer", as kafka-dump-log's offsets decoder
 * shows them.
 */
final class ConsumerProtocolBytes {
    static final String PKG = "org.apache.kafka.common.message";
    static Map<String, JsonNode> clientSchemas;

    private ConsumerProtocolBytes() { }

    /** For variant 0 of GroupMetadataValue: protocol type consumer, members' bytes real consumer-protocol messages. */
    static void fix(Filler filler, String valueName, int version, int variant, long seed) throws Exception {
        if (!valueName.equals("GroupMetadataValue") || variant != 0) return;
        filler.fixed.put("protocoltype", "consumer");
        filler.fixed.put("subscription", encode("ConsumerProtocolSubscription", version, seed));
        filler.fixed.put("assignment", encode("ConsumerProtocolAssignment", version + 1, seed + 1));
    }

    private static byte[] encode(String name, int pick, long seed) throws Exception {
        JsonNode schema = clientSchemas.get(name);
        List<Integer> versions = Schemas.versions(schema);
        int v = versions.get(pick % versions.size());
        ApiMessage m = KsegLab.newMessage(PKG, name);
        new Filler(seed, 0).fill(m, schema, v);
        ByteBuffer b = MessageUtil.toVersionPrefixedByteBuffer((short) v, m);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /** Replaces members' subscription/assignment in a GroupMetadataValue's JSON with their decoding. */
    static void decodeMembers(ApiMessage value, JsonNode data) {
        if (!value.getClass().getSimpleName().equals("GroupMetadataValue")) return;
        if (!"consumer".equals(data.path("protocolType").asText(null))) return;
        for (JsonNode member : data.path("members")) {
            replace((ObjectNode) member, "subscription", "ConsumerProtocolSubscription");
            replace((ObjectNode) member, "assignment", "ConsumerProtocolAssignment");
        }
    }

    private static void replace(ObjectNode member, String field, String name) {
        JsonNode encoded = member.get(field);
        if (encoded == null || !(encoded.isBinary() || encoded.isTextual())) return;
        try {
            ByteBuffer b = ByteBuffer.wrap(encoded.isBinary() ? encoded.binaryValue() : Base64.getDecoder().decode(encoded.asText()));
            short v = b.getShort();
            ApiMessage m = KsegLab.newMessage(PKG, name);
            m.read(new ByteBufferAccessor(b), v);
            member.set(field, KsegLab.converterJson(m, v));
        } catch (Exception e) {
            // bytes that are not the consumer protocol stay as they are
        }
    }
}
