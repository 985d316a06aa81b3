package dev.patchconf.adapters;

import dev.patchconf.kit.Protocol;
import java.util.Map;
import java.util.function.Supplier;

/** {@code java -jar patchconf-java-adapters.jar LIBRARY}: one Java patch library as a patchconf target. */
public final class Main {
    private static final Map<String, Supplier<Protocol.Library>> LIBRARIES = Map.of(
            "fabric8-zjsonpatch", Zjsonpatch::fabric8,
            "flipkart-zjsonpatch", Zjsonpatch::flipkart,
            "java-json-tools", JavaJsonTools::new,
            "parsson", Parsson::new,
            "fabric8-mock", Fabric8Mock::new);

    private Main() {}

    public static void main(String[] args) throws Exception {
        Supplier<Protocol.Library> library = args.length == 1 ? LIBRARIES.get(args[0]) : null;
        if (library == null) {
            System.err.println("usage: patchconf-java-adapters LIBRARY, one of " + String.join(", ", LIBRARIES.keySet()));
            System.exit(2);
        }
        Protocol.main(library.get());
    }
}
