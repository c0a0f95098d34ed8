/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.conf;

import io.rdmashuffle.counters.CounterDescriptor;
import io.rdmashuffle.fetch.ReadCounter;
import io.rdmashuffle.hadoop.reduce.RdmaShuffleCounter;
import io.rdmashuffle.metrics.TransportCounter;
import io.rdmashuffle.serve.ServingCounter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.shuffle.rdma.SparkCounter;

/**
 * Generates {@code docs/metrics.md} and MapReduce's display names of {@link RdmaShuffleCounter}
 * (its {@code .properties} resource bundle) from the counters' declarations, each group an enum of
 * {@link CounterDescriptor}s. {@link OperatorFiles#render()} includes these files, so {@code
 * GeneratedConfigFilesTest} checks and regenerates them with the operator files.
 */
final class MetricsFiles {
  private static final String LICENSE = "SPDX-License-Identifier: Apache-2.0";

  private static final String GENERATED =
      "generated from the counters' declarations by MetricsFiles; do not edit by hand";

  static final String HADOOP_DISPLAY_NAMES =
      "hadoop-plugin/src/main/resources/"
          + RdmaShuffleCounter.class.getName().replace('.', '/')
          + ".properties";

  private static final String SPARK_SOURCE = "Spark metrics source";
  private static final String NODE_MANAGER_LOGS = "NodeManager service logs";

  /** One group of counters on the page: its declarations and where they show. */
  record Group(String title, Class<? extends CounterDescriptor> declared, String shows) {}

  static final List<Group> GROUPS =
      List.of(
          new Group(
              "Transport",
              TransportCounter.class,
              SPARK_SOURCE
                  + " (driver and executors); "
                  + NODE_MANAGER_LOGS
                  + " (the MapReduce service's, when it stops; both services log `readsServed`,"
                  + " `bytesServed` and `registeredRegions` at each application's end); reduce"
                  + " task logs (at the end of each shuffle)"),
          new Group(
              "Serving",
              ServingCounter.class,
              SPARK_SOURCE
                  + "; "
                  + NODE_MANAGER_LOGS
                  + " (the Spark service's, at each application's end; both services log"
                  + " `serve.located` as `located` at each application's end)"),
          new Group("Block readers", ReadCounter.class, SPARK_SOURCE),
          new Group(
              "Spark plugin",
              SparkCounter.class,
              SPARK_SOURCE + " (`readLatencyMicros` is a histogram; the others are gauges)"),
          new Group(
              "Hadoop reduce tasks",
              RdmaShuffleCounter.class,
              "Hadoop job counters (group `"
                  + RdmaShuffleCounter.GROUP_DISPLAY_NAME
                  + "`, summed over the job's reduce tasks; the label is MapReduce's display"
                  + " name)"));

  private MetricsFiles() {}

  /** Relative path (from the repository root) to the content it must have. */
  static Map<String, String> render() {
    Map<String, String> files = new LinkedHashMap<>();
    files.put("docs/metrics.md", metricsPage());
    files.put(HADOOP_DISPLAY_NAMES, hadoopDisplayNames());
    return files;
  }

  static String metricsPage() {
    StringBuilder sb = new StringBuilder();
    sb.append("<!-- ").append(GENERATED).append("; ").append(LICENSE).append(" -->\n");
    sb.append("# Metrics\n\n");
    paragraph(
        sb,
        "",
        "Every counter is declared once, in an enum of its group (after Aeron's"
            + " `SystemCounterDescriptor`): a stable id, the name it is exported under and a label"
            + " saying what it counts. The counters' storage, their snapshots, the Spark metrics"
            + " source, MapReduce's display names and this page all read those declarations. A name"
            + " is part of the interface: tests, cluster runs and result parsers read it, so a"
            + " counter keeps its name and its id.");
    sb.append("\nWhere they show:\n\n");
    paragraph(
        sb,
        "- ",
        "**"
            + SPARK_SOURCE
            + "**: the source `rdmaShuffle` in the driver's and every executor's metrics system,"
            + " one gauge per counter under its name; every configured sink (CSV, JMX, Prometheus"
            + " servlet, ...) sees it.");
    paragraph(
        sb,
        "- ",
        "**Hadoop job counters**: the group `"
            + RdmaShuffleCounter.GROUP_DISPLAY_NAME
            + "` of each job (job history, `mapred job -status`), one counter per name, shown by"
            + " its label.");
    paragraph(
        sb,
        "- ",
        "**"
            + NODE_MANAGER_LOGS
            + "**: the NodeManager's rdma-shuffle services log counters as `name=value` lists.");
    for (Group g : GROUPS) {
      sb.append("\n## ").append(g.title()).append(" (`");
      sb.append(g.declared().getSimpleName()).append("`)\n\n");
      paragraph(sb, "", "Shows in: " + g.shows() + ".");
      sb.append("\n");
      sb.append("| id | name | label |\n");
      sb.append("| --- | --- | --- |\n");
      for (CounterDescriptor c : g.declared().getEnumConstants()) {
        sb.append("| ")
            .append(c.id())
            .append(" | `")
            .append(c.exportName())
            .append("` | ")
            .append(c.label().replace("|", "\\|"))
            .append(" |\n");
      }
    }
    return sb.toString();
  }

  /** {@code text} wrapped at 96 columns, its first line after {@code lead}, the others indented. */
  private static void paragraph(StringBuilder sb, String lead, String text) {
    String indent = " ".repeat(lead.length());
    List<String> lines = OperatorFiles.wrap(text, 96 - lead.length());
    for (int i = 0; i < lines.size(); i++) {
      sb.append(i == 0 ? lead : indent).append(lines.get(i)).append("\n");
    }
  }

  /** The resource bundle MapReduce reads for the group's and each counter's display name. */
  static String hadoopDisplayNames() {
    StringBuilder sb = new StringBuilder();
    sb.append("# ").append(LICENSE).append("\n");
    sb.append("# Display names of RdmaShuffleCounter in a job's counters\n");
    sb.append("# (").append(GENERATED).append(").\n");
    sb.append("CounterGroupName=").append(RdmaShuffleCounter.GROUP_DISPLAY_NAME).append("\n");
    for (RdmaShuffleCounter c : RdmaShuffleCounter.values()) {
      sb.append(c.exportName()).append(".name=").append(propertyValue(c.label())).append("\n");
    }
    return sb.toString();
  }

  /** A value as a {@code .properties} file reads it back: backslashes and non-ASCII escaped. */
  static String propertyValue(String s) {
    StringBuilder sb = new StringBuilder();
    for (char ch : s.toCharArray()) {
      if (ch == '\\') {
        sb.append("\\\\");
      } else if (ch < 0x20 || ch > 0x7e) {
        sb.append(String.format("\\u%04X", (int) ch));
      } else {
        sb.append(ch);
      }
    }
    return sb.toString();
  }
}
