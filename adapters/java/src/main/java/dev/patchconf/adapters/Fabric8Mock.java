package dev.patchconf.adapters;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.patchconf.kit.Protocol;
import dev.patchconf.kit.Protocol.Capabilities;
import dev.patchconf.kit.Protocol.Failure;
import dev.patchconf.kit.Protocol.Implementation;
import dev.patchconf.kit.Protocol.Skip;
import io.fabric8.kubernetes.api.Pluralize;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * fabric8's Kubernetes mock server in CRUD mode ({@code io.fabric8:kubernetes-server-mock},
 * {@code @EnableKubernetesMockClient(crud = true)}), the API server thousands of Java
 * operator test suites run against. Per case: the store is reset, {@code original} is
 * created with a POST, the patch is sent as a PATCH with the case's content type (what the
 * fabric8 client sends for {@code patch(PatchContext.of(type), …)}), and the object is read
 * back with a GET. The fields the mock itself adds (uid, resourceVersion, creationTimestamp,
 * generation, a namespace the object did not state) are taken off before answering.
 */
final class Fabric8Mock implements Protocol.Library {
    private static final Map<String, String> CONTENT_TYPES = Map.of(
            "json-patch", "application/json-patch+json",
            "merge-patch", "application/merge-patch+json",
            "strategic", "application/strategic-merge-patch+json");
    private static final String NAMESPACE = "default";
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final String HANDLER_FAILED = "the mock's PATCH handler threw (the mock itself sends no answer): ";
    private static final List<String> ADDED_METADATA = List.of("uid", "resourceVersion", "creationTimestamp", "generation");

    private final KubernetesMockServer server;
    // The mock's own PATCH handler, except that where it throws (the mock would then never
    // answer, and a client would time out) the exception is answered as a 500 naming it, so
    // the case reports what failed at once.
    private final KubernetesCrudDispatcher dispatcher = new KubernetesCrudDispatcher() {
        @Override
        public MockResponse handlePatch(RecordedRequest request) {
            try {
                return super.handlePatch(request);
            } catch (RuntimeException e) {
                return new MockResponse().setResponseCode(500).setBody(HANDLER_FAILED + Protocol.describe(e));
            }
        }
    };
    private final KubernetesSerialization serialization = new KubernetesSerialization();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    Fabric8Mock() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
        warmUp();
    }

    /** One request of each kind before the handshake: the first costs seconds of class loading. */
    private void warmUp() {
        try {
            answer(Protocol.JSON.readTree("{\"type\": \"merge-patch\", \"original\": {\"apiVersion\": \"v1\", "
                    + "\"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"warm-up\"}}, \"patch\": {\"data\": {}}}"));
        } catch (Exception e) {
            System.err.println("patchconf adapter: the mock's warm-up failed: " + Protocol.describe(e));
        }
    }

    @Override
    public Implementation implementation() {
        return new Implementation("java-fabric8-mock", Protocol.versionOf("fabric8-mock"),
                "https://github.com/fabric8io/kubernetes-client/tree/main/junit/kubernetes-server-mock");
    }

    @Override
    public Capabilities capabilities() {
        return new Capabilities(List.copyOf(CONTENT_TYPES.keySet()).stream().sorted().toList(),
                List.of("builtin", "named", "none"), "kubernetes", false);
    }

    @Override
    public ObjectNode answer(JsonNode c) throws Exception {
        String contentType = CONTENT_TYPES.get(c.path("type").asText());
        JsonNode original = c.path("original");
        if (contentType == null || !c.has("patch")) {
            throw new Skip("the mock server is sent patches: json-patch, merge-patch or strategic cases");
        }
        String apiVersion = original.path("apiVersion").asText("");
        String kind = original.path("kind").asText("");
        String name = original.path("metadata").path("name").asText("");
        if (apiVersion.isEmpty() || kind.isEmpty() || name.isEmpty()) {
            throw new Skip("a server stores Kubernetes objects: original needs apiVersion, kind and metadata.name");
        }
        dispatcher.reset();
        String collection = collectionPath(original, apiVersion, kind);
        HttpResponse<String> created = send("POST", collection, "application/json", Protocol.JSON.writeValueAsString(original));
        if (created.statusCode() >= 300) {
            throw new Skip("the mock refused to create original: " + created.statusCode() + " " + created.body());
        }
        String item = collection + "/" + name;
        HttpResponse<String> patched = send("PATCH", item, contentType, Protocol.JSON.writeValueAsString(c.get("patch")));
        if (patched.statusCode() >= 300) {
            String body = patched.body();
            throw new Failure("unclassified", new Exception(body.startsWith(HANDLER_FAILED) ? body
                    : "HTTP " + patched.statusCode() + ": " + body));
        }
        HttpResponse<String> read = send("GET", item, null, null);
        ObjectNode result = Protocol.JSON.createObjectNode();
        result.set("document", withoutMockFields(Protocol.JSON.readTree(read.body()), original));
        return result;
    }

    private String collectionPath(JsonNode original, String apiVersion, String kind) throws Exception {
        KubernetesResource typed = serialization.unmarshal(Protocol.JSON.writeValueAsString(original), KubernetesResource.class);
        String plural = typed instanceof HasMetadata object && !(typed instanceof GenericKubernetesResource)
                ? HasMetadata.getPlural(object.getClass()) : Pluralize.toPlural(kind.toLowerCase(Locale.ROOT));
        boolean namespaced = !(typed instanceof HasMetadata) || typed instanceof GenericKubernetesResource
                || typed instanceof Namespaced;
        String base = apiVersion.contains("/") ? "/apis/" + apiVersion : "/api/" + apiVersion;
        String namespace = original.path("metadata").path("namespace").asText(NAMESPACE);
        return namespaced ? base + "/namespaces/" + namespace + "/" + plural : base + "/" + plural;
    }

    private HttpResponse<String> send(String method, String path, String contentType, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server.url(path))).timeout(REQUEST_TIMEOUT);
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.method(method, HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", contentType);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode withoutMockFields(JsonNode document, JsonNode original) {
        JsonNode metadata = document.path("metadata");
        if (metadata instanceof ObjectNode fields) {
            JsonNode stated = original.path("metadata");
            for (String field : ADDED_METADATA) {
                if (!stated.has(field)) {
                    fields.remove(field);
                }
            }
            if (!stated.has("namespace")) {
                fields.remove("namespace");
            }
        }
        return document;
    }
}
