package dev.patchconf.adapters;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.fge.jsonpatch.JsonPatch;
import com.github.fge.jsonpatch.JsonPatchException;
import com.github.fge.jsonpatch.mergepatch.JsonMergePatch;
import dev.patchconf.kit.Protocol;
import dev.patchconf.kit.Protocol.Capabilities;
import dev.patchconf.kit.Protocol.Failure;
import dev.patchconf.kit.Protocol.Implementation;
import dev.patchconf.kit.Protocol.Skip;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * java-json-tools json-patch ({@code com.github.java-json-tools:json-patch}, formerly fge):
 * {@code JsonPatch.fromJson(patch).apply(original)} and
 * {@code JsonMergePatch.fromJson(patch).apply(original)}, the calls its README shows.
 */
final class JavaJsonTools implements Protocol.Library {
    // The library's message bundle (com/github/fge/jsonpatch/messages.properties), wording → class.
    private static final Map<String, String> CLASSES = Map.of(
            "no such path in target JSON document", "path-not-found",
            "parent of node to add does not exist", "path-not-found",
            "reference token is not an array index", "invalid-index",
            "no such index in target array", "invalid-index",
            "value differs from expectations", "test-failed");

    @Override
    public Implementation implementation() {
        return new Implementation("java-json-tools-json-patch", Protocol.versionOf("java-json-tools"),
                "https://github.com/java-json-tools/json-patch");
    }

    @Override
    public Capabilities capabilities() {
        return new Capabilities(List.of("json-patch", "merge-patch"), List.of("none"), "rfc", false);
    }

    @Override
    public ObjectNode answer(JsonNode c) {
        if (!c.has("original") || !c.has("patch")) {
            throw new Skip("a " + c.path("type").asText() + " case needs original and patch");
        }
        JsonNode document;
        if (c.path("type").asText().equals("json-patch")) {
            JsonPatch patch;
            try {
                patch = JsonPatch.fromJson(c.get("patch"));
            } catch (IOException e) {
                throw new Failure("invalid-patch", e);
            }
            try {
                document = patch.apply(c.get("original"));
            } catch (JsonPatchException e) {
                throw new Failure(CLASSES.getOrDefault(e.getMessage(), "unclassified"), e);
            }
        } else {
            try {
                document = JsonMergePatch.fromJson(c.get("patch")).apply(c.get("original"));
            } catch (JsonPatchException e) {
                throw new Failure("unclassified", e);
            }
        }
        ObjectNode result = Protocol.JSON.createObjectNode();
        result.set("document", document);
        return result;
    }
}
