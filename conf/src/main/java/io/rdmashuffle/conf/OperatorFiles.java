package io.rdmashuffle.conf;

import io.rdmashuffle.config.ConfigEntry;
import io.rdmashuffle.config.ConfigSchema;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.hadoop.MapReduceConfig;
import io.rdmashuffle.hadoop.spark.SparkServiceConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.shuffle.rdma.SparkConfig;

/**
 * Generates the operator templates in {@code conf/} and {@code docs/configuration.md} from the
 * declarations of every reader of our settings: the core's ({@link RdmaShuffleConfig}), Spark's
 * ({@link SparkConfig}) and MapReduce's ({@link MapReduceConfig}), and with them the files {@link
 * MetricsFiles} generates from the counters' declarations. Regenerate from the repository root with
 *
 * <pre>mvn -o -q -pl conf -am test -Dtest=GeneratedConfigFilesTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dconf.regenerate=true</pre>
 *
 * <p>{@code GeneratedConfigFilesTest} fails when the committed files differ from what this writes.
 */
public final class OperatorFiles {
  /** The license of every generated file, in the form the build's license check (RAT) reads. */
  private static final String LICENSE = "SPDX-License-Identifier: Apache-2.0";

  private static final String GENERATED =
      "generated from the settings' declarations by OperatorFiles; do not edit by hand";

  /** The Spark plugin's ShuffleManager, as {@code spark.shuffle.manager} names it. */
  public static final String SPARK_SHUFFLE_MANAGER =
      "org.apache.spark.shuffle.rdma.RdmaShuffleManager";

  /** Where the template expects the Spark plugin jar on every node. */
  public static final String SPARK_PLUGIN_JAR = "/opt/rdma-shuffle/rdma-shuffle-spark_2.13.jar";

  /** Where the build leaves the Spark plugin jar. */
  static final String SPARK_PLUGIN_BUILT =
      "shuffle-manager/target/rdma-shuffle-spark_2.13-<version>.jar";

  /** The NodeManager auxiliary service (module hadoop-plugin), registered as mapreduce_shuffle. */
  public static final String HADOOP_SERVICE_CLASS =
      "io.rdmashuffle.hadoop.service.RdmaShuffleHandler";

  /** The reduce-side ShuffleConsumerPlugin (module hadoop-plugin). */
  public static final String HADOOP_CONSUMER_CLASS =
      "io.rdmashuffle.hadoop.reduce.RdmaShuffleConsumer";

  /** The auxiliary service name that receives job tokens and whose port the MapReduce AM reads. */
  public static final String HADOOP_SERVICE_NAME = "mapreduce_shuffle";

  /** The NodeManager service for Spark on YARN (module hadoop-plugin), as Spark names it. */
  public static final String SPARK_SERVICE_NAME = "spark_shuffle";

  public static final String SPARK_SERVICE_CLASS =
      "io.rdmashuffle.hadoop.spark.SparkShuffleService";

  private OperatorFiles() {}

  /** Relative path (from the repository root) to the content it must have. */
  public static Map<String, String> render() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("docs/configuration.md", configurationPage());
    files.put("conf/spark-defaults.conf", sparkDefaults());
    files.put("conf/yarn-site.xml", yarnSite());
    files.put("conf/mapred-site.xml", mapredSite());
    files.put("conf/yarn-site-spark.xml", yarnSiteSpark());
    files.putAll(MetricsFiles.render());
    return files;
  }

  /** Writes every file below the repository root {@code root}. */
  public static void write(Path root) throws IOException {
    for (Map.Entry<String, String> f : render().entrySet()) {
      Path p = root.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue(), StandardCharsets.UTF_8);
      System.out.println("wrote " + p);
    }
  }

  static String configurationPage() {
    StringBuilder sb = new StringBuilder();
    sb.append("<!-- ").append(GENERATED).append("; ").append(LICENSE).append(" -->\n");
    sb.append("# Configuration\n\n");
    sb.append(
        "Every setting is read once, when the plugin starts. A value that can't be used, or a\n");
    sb.append(
        "key under the prefix that is not listed here, stops the start with a message naming\n");
    sb.append("the key and the value; nothing falls back to a default silently.\n\n");
    sb.append(
        "Spark reads `spark.shuffle.rdma.<key>` (SparkConf, `spark-defaults.conf`, `--conf`);\n");
    sb.append("Hadoop reads `mapreduce.shuffle.rdma.<key>` (`yarn-site.xml` for the NodeManager\n");
    sb.append("service, `mapred-site.xml` for reducers).\n\n");
    sb.append(
        "Sizes take the units b, k, m, g, t (1k = 1024); durations take ms, s, min, h (a plain\n");
    sb.append("number is milliseconds).\n\n");
    sb.append("| key | type | default | valid | read by | meaning |\n");
    sb.append("| --- | --- | --- | --- | --- | --- |\n");
    for (ConfigEntry<?> e : allEntries()) {
      sb.append("| `")
          .append(e.key())
          .append("` | ")
          .append(e.type().name().replace("|", "\\|"))
          .append(e.unit().isEmpty() ? "" : " (" + e.unit() + ")")
          .append(" | `")
          .append(e.defaultText().isEmpty() ? "\"\"" : e.defaultText())
          .append("` | ")
          .append(e.rangeText())
          .append(" | ")
          .append(scopeText(e))
          .append(" | ")
          .append(e.doc().replace("|", "\\|"))
          .append(" |\n");
    }
    return sb.toString();
  }

  static String sparkDefaults() {
    StringBuilder sb = new StringBuilder();
    sb.append("# ").append(LICENSE).append("\n#\n");
    sb.append("# rdma-shuffle settings for spark-defaults.conf (").append(GENERATED).append(").\n");
    sb.append("#\n");
    sb.append(
        "# Enabling it takes the plugin jar on the class path of the driver and of every executor,\n");
    sb.append(
        "# and the manager flag: the three lines below. Build the jar with `mvn -B package`\n");
    sb.append("# (").append(SPARK_PLUGIN_BUILT).append(") and copy it to the\n");
    sb.append(
        "# same path on every node; these lines replace any extraClassPath you already set, so\n");
    sb.append(
        "# append your own entries with ':'. From Spark 4.0 on, `--jars` works too; on 3.5 the\n");
    sb.append("# jar must be on extraClassPath.\n");
    sb.append("spark.driver.extraClassPath    ").append(SPARK_PLUGIN_JAR).append("\n");
    sb.append("spark.executor.extraClassPath  ").append(SPARK_PLUGIN_JAR).append("\n");
    sb.append("spark.shuffle.manager          ").append(SPARK_SHUFFLE_MANAGER).append("\n");
    sb.append("#\n");
    for (String line :
        wrap(
            "Security (README, section Security): without spark.authenticate the transport's"
                + " secret derives from the application id, which is not secret: applications"
                + " are kept apart by accident only, and whoever reaches an executor and learns"
                + " an application id can READ its map outputs. Set it, as a secured cluster"
                + " does (on YARN Spark makes each application's secret; elsewhere set"
                + " spark.authenticate.secret too):",
            96)) {
      sb.append("# ").append(line).append("\n");
    }
    sb.append("# spark.authenticate             true\n");
    sb.append("#\n");
    sb.append(
        "# The settings below are commented out and show their defaults; uncomment what you\n");
    sb.append("# change. The page docs/configuration.md explains each setting.\n");
    for (ConfigEntry<?> e : SparkConfig.SCHEMA.entries()) {
      sb.append("\n");
      for (String line : wrap(e.doc(), 96)) {
        sb.append("# ").append(line).append("\n");
      }
      if (!e.rangeText().isEmpty()) {
        sb.append("# valid: ").append(e.rangeText()).append("\n");
      }
      sb.append("# ")
          .append(SparkConfig.SCHEMA.key(e))
          .append("  ")
          .append(e.defaultText())
          .append("\n");
    }
    return sb.toString();
  }

  /** The core's settings, then each engine's own. */
  static List<ConfigEntry<?>> allEntries() {
    java.util.Set<ConfigEntry<?>> all = new java.util.LinkedHashSet<>(RdmaShuffleConfig.ALL);
    all.addAll(SparkConfig.SCHEMA.own());
    all.addAll(SparkServiceConfig.SCHEMA.own());
    all.addAll(MapReduceConfig.SCHEMA.own());
    return new ArrayList<>(all);
  }

  private static String scopeText(ConfigEntry<?> e) {
    List<String> readers = new ArrayList<>();
    if (SparkConfig.SCHEMA.declares(e)) {
      readers.add("Spark");
    }
    if (SparkServiceConfig.SCHEMA.declares(e)
        && e.readOn(ConfigEntry.Side.SERVING)
        && e != RdmaShuffleConfig.PORT) {
      readers.add("Spark's NodeManager service");
    }
    if (MapReduceConfig.SCHEMA.declares(e)) {
      readers.add(
          switch (e.side()) {
            case SERVING -> "Hadoop (NodeManager)";
            case FETCHING -> "Hadoop (reduce tasks)";
            case BOTH -> "Hadoop";
          });
    }
    return String.join(", ", readers);
  }

  static String yarnSite() {
    StringBuilder sb = new StringBuilder();
    sb.append("<?xml version=\"1.0\"?>\n");
    sb.append("<!--\n  ").append(LICENSE).append("\n\n");
    sb.append("  rdma-shuffle: NodeManager settings for yarn-site.xml\n");
    sb.append("  (").append(GENERATED).append(").\n\n");
    comment(
        sb,
        "  ",
        "Copy the two properties below into yarn-site.xml on every NodeManager, with the plugin"
            + " jar on the NodeManager's class path (README, section Hadoop MapReduce on YARN). The"
            + " service replaces the stock ShuffleHandler under its name "
            + HADOOP_SERVICE_NAME
            + ": it keeps serving the stock HTTP shuffle (jobs that don't use rdma-shuffle, and"
            + " the fallback of those that do) and receives each job's token. If"
            + " yarn.nodemanager.aux-services lists other services, keep them. With the verbs"
            + " transport the NodeManager's memlock limit (LimitMEMLOCK of its systemd unit, or"
            + " ulimit -l) must allow "
            + MapReduceConfig.SCHEMA.key(RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES)
            + ". The"
            + " settings further down are optional: each is commented out and shows its default.");
    sb.append("-->\n");
    sb.append("<configuration>\n");
    property(sb, "yarn.nodemanager.aux-services", HADOOP_SERVICE_NAME);
    property(
        sb,
        "yarn.nodemanager.aux-services." + HADOOP_SERVICE_NAME + ".class",
        HADOOP_SERVICE_CLASS);
    optionalSettings(sb, ConfigEntry.Side.SERVING);
    sb.append("</configuration>\n");
    return sb.toString();
  }

  static String yarnSiteSpark() {
    StringBuilder sb = new StringBuilder();
    sb.append("<?xml version=\"1.0\"?>\n");
    sb.append("<!--\n  ").append(LICENSE).append("\n\n");
    sb.append("  rdma-shuffle: NodeManager settings for Spark on YARN with dynamic allocation\n");
    sb.append("  (").append(GENERATED).append(").\n\n");
    comment(
        sb,
        "  ",
        "Copy the two properties below into yarn-site.xml on every NodeManager, with the plugin"
            + " jar on the NodeManager's class path (README, section Spark on YARN with dynamic"
            + " allocation), instead of Spark's own yarn-shuffle jar. The service is Spark's"
            + " external shuffle service under its name "
            + SPARK_SERVICE_NAME
            + " (Spark's"
            + " spark.shuffle.service.port, spark.authenticate apply) and serves READs beside it."
            + " Keep "
            + HADOOP_SERVICE_NAME
            + " in yarn.nodemanager.aux-services if MapReduce"
            + " runs on the cluster. The settings further down are optional: each is commented"
            + " out and shows its default; transport and nodeService.port must match the"
            + " executors' values.");
    sb.append("-->\n");
    sb.append("<configuration>\n");
    property(sb, "yarn.nodemanager.aux-services", HADOOP_SERVICE_NAME + "," + SPARK_SERVICE_NAME);
    property(
        sb, "yarn.nodemanager.aux-services." + SPARK_SERVICE_NAME + ".class", SPARK_SERVICE_CLASS);
    sb.append("\n  <!--\n");
    comment(
        sb,
        "  ",
        "Security: with spark.authenticate=true here, the service (Spark's handler and the READs"
            + " beside it) authenticates each application with the secret YARN hands it; set it"
            + " when the applications set spark.authenticate=true (then they must). Without it"
            + " the transport's secret derives from the application id, which is not secret.");
    property(sb, "spark.authenticate", "true");
    sb.append("  -->\n");
    // the service's connection server listens on nodeService.port, never on port
    optionalSettings(
        sb, ConfigEntry.Side.SERVING, SparkServiceConfig.SCHEMA, RdmaShuffleConfig.PORT);
    sb.append("</configuration>\n");
    return sb.toString();
  }

  static String mapredSite() {
    StringBuilder sb = new StringBuilder();
    sb.append("<?xml version=\"1.0\"?>\n");
    sb.append("<!--\n  ").append(LICENSE).append("\n\n");
    sb.append("  rdma-shuffle: reduce-side settings for mapred-site.xml\n");
    sb.append("  (").append(GENERATED).append(").\n\n");
    comment(
        sb,
        "  ",
        "The property below makes every job's reduce tasks fetch map outputs with one-sided READs"
            + " (set it per job instead to try it on some jobs first). Nodes whose NodeManager"
            + " does not run the rdma-shuffle service are fetched from over the stock HTTP shuffle,"
            + " logged and counted. The settings further down are optional: each is commented out"
            + " and shows its default.");
    sb.append("-->\n");
    sb.append("<configuration>\n");
    property(sb, "mapreduce.job.reduce.shuffle.consumer.plugin.class", HADOOP_CONSUMER_CLASS);
    sb.append("\n  <!--\n");
    comment(
        sb,
        "  ",
        "Security: each job's shuffle secret (its job token) is all that keeps its map outputs"
            + " from other jobs' reducers; Hadoop's default is 64 bits (the service warns at start"
            + " and for each job below 128). A job's own setting, read where it is submitted.");
    property(sb, "mapreduce.shuffle-key-length", "128");
    sb.append("  -->\n");
    optionalSettings(sb, ConfigEntry.Side.FETCHING);
    sb.append("</configuration>\n");
    return sb.toString();
  }

  private static void optionalSettings(StringBuilder sb, ConfigEntry.Side side) {
    optionalSettings(sb, side, MapReduceConfig.SCHEMA, null);
  }

  /** {@code schema}'s settings read on {@code side}, commented out, but {@code except}. */
  private static void optionalSettings(
      StringBuilder sb, ConfigEntry.Side side, ConfigSchema schema, ConfigEntry<?> except) {
    for (ConfigEntry<?> e : schema.entries()) {
      if (!e.readOn(side) || e == except) {
        continue;
      }
      sb.append("\n  <!--\n");
      comment(sb, "  ", e.doc());
      if (!e.rangeText().isEmpty()) {
        sb.append("  valid: ").append(xmlComment(e.rangeText())).append("\n");
      }
      property(sb, schema.key(e), e.defaultText());
      sb.append("  -->\n");
    }
  }

  private static void comment(StringBuilder sb, String indent, String text) {
    for (String line : wrap(xmlComment(text), 96)) {
      sb.append(indent).append(line).append("\n");
    }
  }

  private static void property(StringBuilder sb, String name, String value) {
    sb.append("  <property>\n");
    sb.append("    <name>").append(xmlText(name)).append("</name>\n");
    sb.append("    <value>").append(xmlText(value)).append("</value>\n");
    sb.append("  </property>\n");
  }

  private static String xmlText(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  /** Text inside an XML comment may not contain "--". */
  private static String xmlComment(String s) {
    String t = s;
    while (t.contains("--")) {
      t = t.replace("--", "- -");
    }
    return t;
  }

  static java.util.List<String> wrap(String text, int width) {
    java.util.List<String> lines = new java.util.ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }
}
