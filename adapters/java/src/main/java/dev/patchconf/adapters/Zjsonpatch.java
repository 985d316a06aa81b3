package dev.patchconf.adapters;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.patchconf.kit.Protocol;
import dev.patchconf.kit.Protocol.Capabilities;
import dev.patchconf.kit.Protocol.Failure;
import dev.patchconf.kit.Protocol.Implementation;
import dev.patchconf.kit.Protocol.Skip;
import java.util.List;
import java.util.function.BinaryOperator;

/**
 * zjsonpatch, in its two lines: fabric8's fork ({@code io.fabric8:zjsonpatch}, what the
 * fabric8 Kubernetes client's {@code edit()} and its mock server use) and Flipkart's original
 * ({@code com.flipkart.zjsonpatch}). Each case is {@code JsonPatch.apply(patch, original)},
 * the library's default flags.
 */
final class Zjsonpatch implements Protocol.Library {
    private final Implementation implementation;
    private final BinaryOperator<JsonNode> apply; // (patch, document) -> patched document

    private Zjsonpatch(Implementation implementation, BinaryOperator<JsonNode> apply) {
        this.implementation = implementation;
        this.apply = apply;
    }

    static Zjsonpatch fabric8() {
        return new Zjsonpatch(new Implementation("java-fabric8-zjsonpatch", Protocol.versionOf("fabric8-zjsonpatch"),
                "https://github.com/fabric8io/zjsonpatch"), io.fabric8.zjsonpatch.JsonPatch::apply);
    }

    static Zjsonpatch flipkart() {
        return new Zjsonpatch(new Implementation("java-flipkart-zjsonpatch",
                Protocol.versionOf("flipkart-zjsonpatch"), "https://github.com/flipkart-incubator/zjsonpatch"),
                com.flipkart.zjsonpatch.JsonPatch::apply);
    }

    @Override
    public Implementation implementation() {
        return implementation;
    }

    @Override
    public Capabilities capabilities() {
        return new Capabilities(List.of("json-patch"), List.of("none"), "rfc", false);
    }

    @Override
    public ObjectNode answer(JsonNode c) {
        if (!c.has("original") || !c.has("patch")) {
            throw new Skip("a json-patch case needs original and patch");
        }
        JsonNode document;
        try {
            document = apply.apply(c.get("patch"), c.get("original"));
        } catch (RuntimeException e) {
            throw new Failure(classify(e), e);
        }
        ObjectNode result = Protocol.JSON.createObjectNode();
        result.set("document", document);
        return result;
    }

    /** Only what the library's own exception says: its operation (none: the patch is malformed) and wording. */
    static String classify(RuntimeException e) {
        String operation = null;
        if (e instanceof io.fabric8.zjsonpatch.JsonPatchException f) {
            operation = f.getOperation() == null ? null : f.getOperation().name();
        } else if (e instanceof com.flipkart.zjsonpatch.JsonPatchApplicationException f) {
            operation = f.getOperation() == null ? null : f.getOperation().name();
        } else if (e instanceof com.flipkart.zjsonpatch.InvalidJsonPatchException) {
            return "invalid-patch";
        } else {
            return "unclassified";
        }
        String message = String.valueOf(e.getMessage());
        if (operation == null) {
            return message.startsWith("Invalid JSON Patch payload") || message.startsWith("unknown / unsupported operation")
                    ? "invalid-patch" : "unclassified";
        }
        if (message.contains("out of bounds")) {
            return "invalid-index";
        }
        if (message.startsWith("Missing field")) {
            return "path-not-found";
        }
        if (operation.equals("TEST") && message.startsWith("Expected ")) {
            return "test-failed";
        }
        return "unclassified";
    }
}
