package dev.patchconf.kit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;

/**
 * The protocol half of a patchconf adapter in Java (harness/PROTOCOL.md): the handshake, the
 * loop, exact numbers, and a library's exception turned into that case's answer. An adapter
 * is who it is, what it runs, and one method answering a case.
 */
public final class Protocol {
    private Protocol() {}

    /** The handshake's {@code implementation}. */
    public record Implementation(String name, String version, String homepage) {}

    /** The handshake's {@code capabilities}. */
    public record Capabilities(List<String> patchTypes, List<String> schemas, String profile, boolean messages) {}

    /** One library behind the protocol. */
    public interface Library {
        Implementation implementation();

        Capabilities capabilities();

        /**
         * The case's {@code result} object. Throw {@link Skip} to decline the case and
         * {@link Failure} for an error of a known class; any other exception is the case's
         * {@code unclassified} error.
         */
        ObjectNode answer(JsonNode c) throws Exception;
    }

    /** Declines a case, saying why. */
    public static final class Skip extends RuntimeException {
        public Skip(String reason) {
            super(reason);
        }
    }

    /** The library refused the case with an error of one of patchconf's classes. */
    public static final class Failure extends RuntimeException {
        public final String errorClass;

        public Failure(String errorClass, Throwable cause) {
            super(describe(cause), cause);
            this.errorClass = errorClass;
        }
    }

    /**
     * JSON as the harness sends it, numbers exact: integers of any size, decimals as written
     * ({@code 1.0} stays {@code 1.0}).
     */
    public static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    /** Serves requests from {@code in} on {@code out} until {@code stop} or the end of input. */
    public static void serve(Library library, InputStream in, OutputStream out) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        PrintStream writer = new PrintStream(out, false, StandardCharsets.UTF_8);
        for (String line; (line = reader.readLine()) != null; ) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode request;
            try {
                request = JSON.readTree(line);
            } catch (JsonProcessingException e) {
                send(writer, error(JSON.nullNode(), "unclassified", "unreadable request: " + e.getOriginalMessage()));
                continue;
            }
            String command = request.path("cmd").asText();
            JsonNode seq = request.has("seq") ? request.get("seq") : JSON.nullNode();
            switch (command) {
                case "start" -> send(writer, handshake(library));
                case "stop" -> {
                    writer.flush();
                    return;
                }
                case "run" -> send(writer, run(library, seq, request.path("case")));
                default -> send(writer, error(seq, "unclassified", "unknown command \"" + command + "\""));
            }
        }
        writer.flush();
    }

    /** Serves stdin and stdout, then exits 0 (a library's own threads must not keep the program alive). */
    public static void main(Library library) throws IOException {
        System.err.println("patchconf adapter: " + library.implementation().name() + " " + library.implementation().version());
        serve(library, System.in, System.out);
        System.exit(0);
    }

    private static ObjectNode handshake(Library library) {
        ObjectNode answer = JSON.createObjectNode().put("ready", true).put("protocol", 1);
        Implementation who = library.implementation();
        answer.putObject("implementation").put("name", who.name()).put("version", who.version())
                .put("language", "java").put("homepage", who.homepage());
        Capabilities can = library.capabilities();
        ObjectNode capabilities = answer.putObject("capabilities");
        can.patchTypes().forEach(capabilities.putArray("patch_types")::add);
        can.schemas().forEach(capabilities.putArray("schemas")::add);
        capabilities.put("profile", can.profile()).put("messages", can.messages());
        return answer;
    }

    private static ObjectNode run(Library library, JsonNode seq, JsonNode c) {
        try {
            ObjectNode result = library.answer(c);
            if (result == null) {
                return error(seq, "unclassified", "the adapter gave no answer");
            }
            ObjectNode answer = JSON.createObjectNode();
            answer.set("seq", seq);
            answer.set("result", result);
            return answer;
        } catch (Skip skip) {
            ObjectNode answer = JSON.createObjectNode();
            answer.set("seq", seq);
            return answer.put("skipped", skip.getMessage());
        } catch (Failure failure) {
            return error(seq, failure.errorClass, failure.getMessage());
        } catch (Exception | StackOverflowError e) { // the library's failure is its answer
            return error(seq, "unclassified", describe(e));
        }
    }

    private static ObjectNode error(JsonNode seq, String errorClass, String message) {
        ObjectNode answer = JSON.createObjectNode();
        answer.set("seq", seq);
        answer.putObject("error").put("class", errorClass).put("message", message);
        return answer;
    }

    private static void send(PrintStream writer, ObjectNode answer) {
        String line;
        try {
            line = JSON.writeValueAsString(answer);
        } catch (JsonProcessingException e) {
            line = "{\"seq\":" + answer.get("seq") + ",\"error\":{\"class\":\"unclassified\",\"message\":"
                    + JSON.getNodeFactory().textNode("the answer is not JSON: " + e.getOriginalMessage()) + "}}";
        }
        writer.print(line);
        writer.print('\n');
        writer.flush();
    }

    /** An exception as a message: its class when the message does not say what happened. */
    public static String describe(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getName() : e.getClass().getSimpleName() + ": " + message;
    }

    /**
     * A library's version as the build pinned it: {@code key} in the jar's
     * {@code /versions.properties}, which Maven fills from pom.xml ("unknown" if absent).
     */
    public static String versionOf(String key) {
        try (InputStream stream = Protocol.class.getResourceAsStream("/versions.properties")) {
            if (stream == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(stream);
            return properties.getProperty(key, "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
