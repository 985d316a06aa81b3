package dev.patchconf.adapters;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.patchconf.kit.Protocol;
import dev.patchconf.kit.Protocol.Capabilities;
import dev.patchconf.kit.Protocol.Failure;
import dev.patchconf.kit.Protocol.Implementation;
import dev.patchconf.kit.Protocol.Skip;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonException;
import jakarta.json.JsonReader;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Eclipse Parsson, the Jakarta JSON Processing (JSON-P) implementation of Jakarta EE:
 * {@code Json.createPatch(patch).apply(original)}, {@code Json.createMergePatch(patch).apply(original)}
 * and {@code Json.createMergeDiff(original, modified)}. Inputs reach it as JSON text, read by
 * its own parser (numbers are BigDecimal there).
 */
final class Parsson implements Protocol.Library {
    // Parsson's message bundle (org/eclipse/parsson/messages.properties), wording → class.
    private static final List<Object[]> CLASSES = List.of(
            new Object[] {Pattern.compile("^A JSON Patch must be an array|^Illegal value for the op member|"
                    + "^The JSON Patch operation '[^']*' must contain|^The JSON Patch must contain 'op'"), "invalid-patch"},
            new Object[] {Pattern.compile("^The JSON Patch operation 'test' failed"), "test-failed"},
            new Object[] {Pattern.compile("contains no mapping for the name|path of the patch operation 'move' does not exist"),
                    "path-not-found"},
            new Object[] {Pattern.compile("^Array index format error|^Illegal integer format|^An array item index is out of range"),
                    "invalid-index"});

    @Override
    public Implementation implementation() {
        return new Implementation("java-parsson", Protocol.versionOf("parsson"),
                "https://github.com/eclipse-ee4j/parsson");
    }

    @Override
    public Capabilities capabilities() {
        return new Capabilities(List.of("json-patch", "merge-patch", "merge-patch-2way"), List.of("none"), "rfc", false);
    }

    @Override
    public ObjectNode answer(JsonNode c) throws Exception {
        String type = c.path("type").asText();
        String second = type.equals("merge-patch-2way") ? "modified" : "patch";
        if (!c.has("original") || !c.has(second)) {
            throw new Skip("a " + type + " case needs original and " + second);
        }
        JsonValue original = read(c.get("original"));
        JsonValue other = read(c.get(second));
        ObjectNode result = Protocol.JSON.createObjectNode();
        try {
            switch (type) {
                case "json-patch" -> {
                    if (!(other instanceof JsonArray patch)) {
                        throw new Failure("invalid-patch", new JsonException("A JSON Patch must be an array of JSON Objects"));
                    }
                    if (!(original instanceof JsonStructure target)) {
                        throw new Skip("JSON-P patches only a JSON object or array (JsonStructure), not " + original.getValueType());
                    }
                    result.set("document", write(Json.createPatch(patch).apply(target)));
                }
                case "merge-patch" -> result.set("document", write(Json.createMergePatch(other).apply(original)));
                default -> {
                    JsonValue patch = Json.createMergeDiff(original, other).toJsonValue();
                    result.set("patch", write(patch));
                    result.set("document", write(Json.createMergePatch(patch).apply(original)));
                }
            }
        } catch (JsonException e) {
            throw new Failure(classify(String.valueOf(e.getMessage())), e);
        }
        return result;
    }

    private static String classify(String message) {
        for (Object[] rule : CLASSES) {
            if (((Pattern) rule[0]).matcher(message).find()) {
                return (String) rule[1];
            }
        }
        return "unclassified";
    }

    private static JsonValue read(JsonNode node) throws Exception {
        try (JsonReader reader = Json.createReader(new StringReader(Protocol.JSON.writeValueAsString(node)))) {
            return reader.readValue();
        }
    }

    private static JsonNode write(JsonValue value) throws Exception {
        return Protocol.JSON.readTree(value.toString());
    }
}
