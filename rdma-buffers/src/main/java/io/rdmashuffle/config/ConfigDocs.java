package io.rdmashuffle.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Generates the operator templates in {@code conf/} and {@code docs/configuration.md} from
 * {@link RdmaShuffleConfig}. Run from the repository root:
 *
 * <pre>mvn -q -pl rdma-buffers compile
 * java -cp rdma-buffers/target/classes io.rdmashuffle.config.ConfigDocs .</pre>
 *
 * <p>{@code GeneratedConfigFilesTest} fails when the committed files differ from what this writes.
 */
public final class ConfigDocs {
  private static final String GENERATED =
      "generated from RdmaShuffleConfig by ConfigDocs; do not edit by hand";

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

  private ConfigDocs() {}

  /** Relative path (from the repository root) to the content it must have. */
  public static Map<String, String> render() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("docs/configuration.md", configurationPage());
    files.put("conf/spark-defaults.conf", sparkDefaults());
    files.put("conf/yarn-site.xml", yarnSite());
    files.put("conf/mapred-site.xml", mapredSite());
    return files;
  }

  public static void main(String[] args) throws IOException {
    Path root = Paths.get(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
    if (!Files.exists(root.resolve("rdma-buffers"))) {
      // exec:java runs in the module's folder when started with -pl
      root = root.getParent();
    }
    for (Map.Entry<String, String> f : render().entrySet()) {
      Path p = root.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue(), StandardCharsets.UTF_8);
      System.out.println("wrote " + p);
    }
  }

  static String configurationPage() {
    StringBuilder sb = new StringBuilder();
    sb.append("<!-- ").append(GENERATED).append(" -->\n");
    sb.append("# Configuration\n\n");
    sb.append("Every setting is read once, when the plugin starts. A value that can't be used, or a\n");
    sb.append("key under the prefix that is not listed here, stops the start with a message naming\n");
    sb.append("the key and the value; nothing falls back to a default silently.\n\n");
    sb.append("Spark reads `spark.shuffle.rdma.<key>` (SparkConf, `spark-defaults.conf`, `--conf`);\n");
    sb.append("Hadoop reads `mapreduce.shuffle.rdma.<key>` (`yarn-site.xml` for the NodeManager\n");
    sb.append("service, `mapred-site.xml` for reducers).\n\n");
    sb.append("Sizes take the units b, k, m, g, t (1k = 1024); durations take ms, s, min, h (a plain\n");
    sb.append("number is milliseconds).\n\n");
    sb.append("| key | type | default | valid | read by | meaning |\n");
    sb.append("| --- | --- | --- | --- | --- | --- |\n");
    for (ConfigEntry<?> e : RdmaShuffleConfig.ALL) {
      sb.append("| `").append(e.key()).append("` | ")
          .append(e.type().name().replace("|", "\\|"))
          .append(e.unit().isEmpty() ? "" : " (" + e.unit() + ")")
          .append(" | `").append(e.defaultText().isEmpty() ? "\"\"" : e.defaultText()).append("` | ")
          .append(e.rangeText()).append(" | ")
          .append(scopeText(e)).append(" | ")
          .append(e.doc().replace("|", "\\|")).append(" |\n");
    }
    return sb.toString();
  }

  static String sparkDefaults() {
    StringBuilder sb = new StringBuilder();
    sb.append("# rdma-shuffle settings for spark-defaults.conf (").append(GENERATED).append(").\n");
    sb.append("#\n");
    sb.append("# Enabling it takes the plugin jar on the class path of the driver and of every executor,\n");
    sb.append("# and the manager flag: the three lines below. Build the jar with `mvn -B package`\n");
    sb.append("# (").append(SPARK_PLUGIN_BUILT).append(") and copy it to the\n");
    sb.append("# same path on every node; these lines replace any extraClassPath you already set, so\n");
    sb.append("# append your own entries with ':'. From Spark 4.0 on, `--jars` works too; on 3.5 the\n");
    sb.append("# jar must be on extraClassPath.\n");
    sb.append("spark.driver.extraClassPath    ").append(SPARK_PLUGIN_JAR).append("\n");
    sb.append("spark.executor.extraClassPath  ").append(SPARK_PLUGIN_JAR).append("\n");
    sb.append("spark.shuffle.manager          ").append(SPARK_SHUFFLE_MANAGER).append("\n");
    sb.append("#\n");
    sb.append("# The settings below are commented out and show their defaults; uncomment what you\n");
    sb.append("# change. The page docs/configuration.md explains each setting.\n");
    for (ConfigEntry<?> e : RdmaShuffleConfig.ALL) {
      if (!e.readBy(KeyStyle.SPARK)) {
        continue;
      }
      sb.append("\n");
      for (String line : wrap(e.doc(), 96)) {
        sb.append("# ").append(line).append("\n");
      }
      if (!e.rangeText().isEmpty()) {
        sb.append("# valid: ").append(e.rangeText()).append("\n");
      }
      sb.append("# ").append(e.key(KeyStyle.SPARK)).append("  ").append(e.defaultText()).append("\n");
    }
    return sb.toString();
  }

  private static String scopeText(ConfigEntry<?> e) {
    String hadoop =
        switch (e.side()) {
          case SERVING -> "Hadoop (NodeManager)";
          case FETCHING -> "Hadoop (reduce tasks)";
          case BOTH -> "Hadoop";
        };
    return switch (e.scope()) {
      case COMMON -> "Spark, " + hadoop;
      case SPARK -> "Spark";
      case HADOOP -> hadoop;
    };
  }

  static String yarnSite() {
    StringBuilder sb = new StringBuilder();
    sb.append("<?xml version=\"1.0\"?>\n");
    sb.append("<!--\n");
    sb.append("  rdma-shuffle: NodeManager settings for yarn-site.xml\n");
    sb.append("  (").append(GENERATED).append(").\n\n");
    comment(sb, "  ",
        "Copy the two properties below into yarn-site.xml on every NodeManager, with the plugin"
            + " jar on the NodeManager's class path (README, section Hadoop MapReduce on YARN). The"
            + " service replaces the stock ShuffleHandler under its name " + HADOOP_SERVICE_NAME
            + ": it keeps serving the stock HTTP shuffle (jobs that don't use rdma-shuffle, and"
            + " the fallback of those that do) and receives each job's token. If"
            + " yarn.nodemanager.aux-services lists other services, keep them. With the verbs"
            + " transport the NodeManager's memlock limit (LimitMEMLOCK of its systemd unit, or"
            + " ulimit -l) must allow mapreduce.shuffle.rdma.serve.maxPinnedBytes. The"
            + " settings further down are optional: each is commented out and shows its default.");
    sb.append("-->\n");
    sb.append("<configuration>\n");
    property(sb, "yarn.nodemanager.aux-services", HADOOP_SERVICE_NAME);
    property(sb, "yarn.nodemanager.aux-services." + HADOOP_SERVICE_NAME + ".class",
        HADOOP_SERVICE_CLASS);
    optionalSettings(sb, ConfigEntry.Side.SERVING);
    sb.append("</configuration>\n");
    return sb.toString();
  }

  static String mapredSite() {
    StringBuilder sb = new StringBuilder();
    sb.append("<?xml version=\"1.0\"?>\n");
    sb.append("<!--\n");
    sb.append("  rdma-shuffle: reduce-side settings for mapred-site.xml\n");
    sb.append("  (").append(GENERATED).append(").\n\n");
    comment(sb, "  ",
        "The property below makes every job's reduce tasks fetch map outputs with one-sided READs"
            + " (set it per job instead to try it on some jobs first). Nodes whose NodeManager"
            + " does not run the rdma-shuffle service are fetched from over the stock HTTP shuffle,"
            + " logged and counted. The settings further down are optional: each is commented out"
            + " and shows its default.");
    sb.append("-->\n");
    sb.append("<configuration>\n");
    property(sb, "mapreduce.job.reduce.shuffle.consumer.plugin.class", HADOOP_CONSUMER_CLASS);
    optionalSettings(sb, ConfigEntry.Side.FETCHING);
    sb.append("</configuration>\n");
    return sb.toString();
  }

  private static void optionalSettings(StringBuilder sb, ConfigEntry.Side side) {
    for (ConfigEntry<?> e : RdmaShuffleConfig.ALL) {
      if (!e.readBy(KeyStyle.HADOOP) || !e.readOn(side)) {
        continue;
      }
      sb.append("\n  <!--\n");
      comment(sb, "  ", e.doc());
      if (!e.rangeText().isEmpty()) {
        sb.append("  valid: ").append(xmlComment(e.rangeText())).append("\n");
      }
      property(sb, e.key(KeyStyle.HADOOP), e.defaultText());
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
