/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.tools;

import io.rdmashuffle.config.ConfigEntry;
import io.rdmashuffle.config.ConfigException;
import io.rdmashuffle.config.ConfigSchema;
import io.rdmashuffle.config.ConfigSource;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.provider.Availability;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * {@code rdma-shuffle doctor}: prints which transport {@code auto} would pick on this node and why
 * (native library, devices, port states, memlock limit), for the settings found in a
 * spark-defaults.conf style file ({@code --conf FILE}; {@code $SPARK_CONF_DIR/spark-defaults.conf}
 * by default), in {@code -Dspark.shuffle.rdma.*} system properties, and in {@code --set key=value}
 * arguments. Exit status 0 when the configured transport can run, 1 when it can't, 2 on bad
 * settings. The settings are read with the engine's schema; the Spark plugin jar's main class runs
 * it with Spark's ({@code spark-submit <the jar>}).
 */
public final class Doctor {
  private Doctor() {}

  static final String USAGE =
      """
      usage: bin/rdma-shuffle doctor [--conf spark-defaults.conf] [--set key=value]...
                 [--node-service HOST[:PORT]]
        Which transport `auto` picks on this node, and why: native library, devices, port states,
        memlock limit, for the settings in --conf ($SPARK_CONF_DIR/spark-defaults.conf by
        default), in -Dspark.shuffle.rdma.* system properties and in --set. --node-service also
        asks a node service whether it answers. Exit status 0 when the configured transport can
        run, 1 when it can't, 2 on bad settings.
      """;

  /** Runs the doctor; returns the exit status. Mistakes and the report both go to {@code out}. */
  public static int run(ConfigSchema schema, String[] args, PrintStream out) {
    return run(schema, args, out, out);
  }

  /** Runs the doctor; returns the exit status. The command line's mistakes go to {@code err}. */
  public static int run(ConfigSchema schema, String[] args, PrintStream out, PrintStream err) {
    return run(schema, null, args, out, err);
  }

  /**
   * Runs the doctor for an engine whose node service listens on the {@code nodeServicePort} setting
   * (Spark's), which {@code --node-service HOST} without a port then asks; returns the exit status.
   */
  public static int run(
      ConfigSchema schema,
      ConfigEntry<Integer> nodeServicePort,
      String[] args,
      PrintStream out,
      PrintStream err) {
    return Cli.run("doctor", USAGE, args, out, err, a -> run(schema, nodeServicePort, a, out));
  }

  private static int run(
      ConfigSchema schema, ConfigEntry<Integer> nodeServicePort, Cli a, PrintStream out) {
    Map<String, String> settings = new TreeMap<>();
    try {
      Path file = a.option("conf", defaultConfFile(), Paths::get);
      String nodeService = a.option("node-service", null);
      for (String kv : a.all("set")) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new Cli.UsageError("--set expects key=value, got " + kv);
        }
        settings.put(kv.substring(0, eq), kv.substring(eq + 1));
      }
      // the plugin jars' main classes may be given the word (spark-submit JAR doctor)
      String word = a.positional("doctor", null);
      if (word != null && !word.equals("doctor")) {
        throw new Cli.UsageError("unknown argument " + word);
      }
      a.done();
      Map<String, String> merged = new TreeMap<>();
      if (file != null && Files.isReadable(file)) {
        out.println("settings from " + file);
        merged.putAll(readSparkDefaults(file));
      }
      for (String k : System.getProperties().stringPropertyNames()) {
        if (k.startsWith(schema.prefix()) || k.equals(SPARK_AUTHENTICATE)) {
          merged.put(k, System.getProperty(k));
        }
      }
      merged.putAll(settings);
      RdmaConf conf = RdmaConf.load(schema, ConfigSource.of(merged));
      int status = report(conf, out);
      if (schema.prefix().startsWith("spark.")) {
        out.println(securityMode(merged));
      }
      if (nodeService != null) {
        NodeServiceProbe.Outcome o = probeNodeService(nodeService, nodeServicePort, conf);
        out.println("node service " + o.line());
        if (!o.answering()) {
          status = 1;
        }
      }
      return status;
    } catch (ConfigException e) {
      out.println("bad setting: " + e.getMessage());
      return 2;
    } catch (Cli.UsageError e) {
      throw e;
    } catch (IOException | IllegalArgumentException e) {
      out.println("doctor failed: " + e);
      return 2;
    }
  }

  static final String SPARK_AUTHENTICATE = "spark.authenticate";

  /**
   * Which security mode a Spark application with these settings runs: with {@code
   * spark.authenticate} peers prove Spark's secret for the application; without it the secret
   * derives from the application id alone, which every host of the cluster sees.
   */
  static String securityMode(Map<String, String> settings) {
    if (Boolean.parseBoolean(settings.getOrDefault(SPARK_AUTHENTICATE, "false").trim())) {
      return "security: spark.authenticate=true: peers prove the application's secret"
          + " (Spark's, which only its own processes hold) before they locate or READ anything";
    }
    return "security: spark.authenticate is off: the transport's secret derives from the"
        + " application id, which is not secret: applications are kept apart by accident only,"
        + " and anyone who can reach an executor and learns an application id can READ its map"
        + " outputs (as Spark's own block transfer without it); set spark.authenticate=true";
  }

  static int report(RdmaConf conf, PrintStream out) {
    TransportSelector.Choice c = TransportSelector.standard().choose(conf);
    for (Map.Entry<TransportKind, Availability> e : c.probes().entrySet()) {
      Availability a = e.getValue();
      out.println(
          "transport "
              + e.getKey().name().toLowerCase(Locale.ROOT)
              + ": "
              + (a.available() ? "available" : "unavailable: " + a.cause()));
      for (String f : a.findings()) {
        out.println("  " + f);
      }
    }
    out.println("chosen: " + c.kind().name().toLowerCase(Locale.ROOT) + " (" + c.reason() + ")");
    return c.probes().get(c.kind()).available() ? 0 : 1;
  }

  /** Probes a node service at {@code hostPort}; without a port, the engine's node service port. */
  private static NodeServiceProbe.Outcome probeNodeService(
      String hostPort, ConfigEntry<Integer> nodeServicePort, RdmaConf conf) {
    int colon = hostPort.lastIndexOf(':');
    int port;
    String host;
    if (colon > 0) {
      host = hostPort.substring(0, colon);
      port = Integer.parseInt(hostPort.substring(colon + 1));
    } else if (nodeServicePort != null) {
      host = hostPort;
      port = conf.get(nodeServicePort);
    } else {
      throw new IllegalArgumentException("--node-service " + hostPort + ": needs HOST:PORT");
    }
    long millis = conf.get(RdmaShuffleConfig.CONNECT_TIMEOUT).toMillis();
    return NodeServiceProbe.probe(host, port, (int) Math.min(Integer.MAX_VALUE, millis));
  }

  private static Path defaultConfFile() {
    String dir = System.getenv("SPARK_CONF_DIR");
    if (dir == null && System.getenv("SPARK_HOME") != null) {
      dir = System.getenv("SPARK_HOME") + "/conf";
    }
    return dir == null ? null : Paths.get(dir, "spark-defaults.conf");
  }

  /** spark-defaults.conf: whitespace-separated key and value per line, # comments. */
  static Map<String, String> readSparkDefaults(Path file) throws IOException {
    Map<String, String> m = new TreeMap<>();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      Properties p = new Properties();
      p.load(r);
      for (String k : p.stringPropertyNames()) {
        m.put(k.trim(), p.getProperty(k).trim());
      }
    }
    return m;
  }
}
