// A single-node OpenSearch for the local screening engine (yente), started
// from the jars Maven copies into <stack>/lib/opensearch (local/stack/pom.xml,
// profile opensearch), with no build step: Java 17 runs this one source file
// as it is.
//
//   java -Xmx256m -XX:+UseSerialGC -cp "<stack>/lib/opensearch/*" \
//     local/screening/OpenSearchNode.java --port 9200 --home <stack>/opensearch
//
// It binds HTTP to 127.0.0.1:<port> only, and its transport (unused by a
// single node) to a free loopback port, so that several stacks on one
// machine never collide. Data and logs are kept under --home, which
// local/screening/engine.sh wipes before each fresh start. Of OpenSearch's
// modules it loads the two yente needs: HTTP over Netty and analysis-common
// (the lowercase and asciifolding token filters of yente's index settings).
// SIGTERM closes the node and ends the JVM.

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.logging.LogConfigurator;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

public class OpenSearchNode {
    // Node's constructor that takes plugin classes is protected: a subclass
    // reaches it.
    static final class LocalNode extends Node {
        LocalNode(Environment env) {
            super(env, List.<Class<? extends Plugin>>of(Netty4Plugin.class, CommonAnalysisPlugin.class), true);
        }
    }

    public static void main(String[] args) throws Exception {
        String port = null;
        String home = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = args[i + 1];
                case "--home" -> home = args[i + 1];
                default -> usage("unknown argument " + args[i]);
            }
        }
        if (port == null || home == null || args.length % 2 != 0) {
            usage("--port and --home are required");
        }
        Path homeDir = Path.of(home).toAbsolutePath();
        for (String sub : new String[] {"config", "data", "logs", "plugins", "modules"}) {
            Files.createDirectories(homeDir.resolve(sub));
        }
        Settings settings = Settings.builder()
            .put("cluster.name", "evs-screening")
            .put("node.name", "evs-screening")
            .put("path.home", homeDir.toString())
            .put("path.data", homeDir.resolve("data").toString())
            .put("path.logs", homeDir.resolve("logs").toString())
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", port)
            .put("transport.port", "0")
            .put("http.type", "netty4")
            .put("transport.type", "netty4")
            // The node's folder is small and the machine's disk may be full
            // of other things: never refuse to allocate yente's shards.
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("bootstrap.memory_lock", false)
            .put("logger.level", "WARN")
            .build();
        LogConfigurator.registerErrorListener();
        LogConfigurator.setNodeName("evs-screening");
        LogConfigurator.configureWithoutConfig(settings);
        Environment env = InternalSettingsPreparer.prepareEnvironment(
            settings, Collections.emptyMap(), homeDir.resolve("config"), () -> "evs-screening");
        Node node = new LocalNode(env);
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
            } catch (Exception e) {
                System.err.println("OpenSearchNode: close: " + e);
            }
            done.countDown();
        }, "evs-opensearch-shutdown"));
        node.start();
        System.out.println("OpenSearchNode: started on http://127.0.0.1:" + port + " (home " + homeDir + ")");
        // OpenSearch's threads are daemons: keep the JVM alive until SIGTERM.
        done.await();
    }

    private static void usage(String why) {
        System.err.println("OpenSearchNode: " + why);
        System.err.println("usage: java -cp '<lib>/*' OpenSearchNode.java --port PORT --home DIR");
        System.exit(2);
    }
}
