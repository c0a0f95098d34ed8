/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.conf;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.ConfigEntry;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.counters.CounterDescriptor;
import io.rdmashuffle.hadoop.MapReduceConfig;
import io.rdmashuffle.hadoop.reduce.RdmaShuffleCounter;
import io.rdmashuffle.hadoop.spark.SparkServiceConfig;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.spark.shuffle.rdma.SparkConfig;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The committed operator templates, configuration page, metrics page and MapReduce counter display
 * names are what the declarations generate.
 */
class GeneratedConfigFilesTest {
  private static final String REGENERATE =
      "mvn -o -q -pl conf -am test"
          + " -Dtest=GeneratedConfigFilesTest -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dconf.regenerate=true";

  /** With {@code -Dconf.regenerate=true}, writes the files first (the way to regenerate them). */
  @Test
  void committedFilesMatchTheDeclarations() throws Exception {
    Path root = Paths.get("").toAbsolutePath().getParent();
    if (Boolean.getBoolean("conf.regenerate")) {
      OperatorFiles.write(root);
    }
    for (Map.Entry<String, String> f : OperatorFiles.render().entrySet()) {
      Path p = root.resolve(f.getKey());
      assertTrue(Files.exists(p), p + " is missing; run: " + REGENERATE);
      assertEquals(
          f.getValue(),
          Files.readString(p, StandardCharsets.UTF_8),
          p + " drifted from the declarations; run: " + REGENERATE);
    }
  }

  @Test
  void everyEntryAppearsOnThePageAndInItsEnginesTemplate() {
    Map<String, String> files = OperatorFiles.render();
    for (ConfigEntry<?> e : OperatorFiles.allEntries()) {
      assertTrue(files.get("docs/configuration.md").contains("`" + e.key() + "`"), e.key());
      assertEquals(
          SparkConfig.SCHEMA.declares(e),
          files.get("conf/spark-defaults.conf").contains(SparkConfig.SCHEMA.key(e) + " "),
          e.key());
    }
  }

  @Test
  void theMetricsPageListsEveryDeclaredCounterUnderItsGroup() {
    String page = OperatorFiles.render().get("docs/metrics.md");
    for (MetricsFiles.Group g : MetricsFiles.GROUPS) {
      int section =
          page.indexOf("\n## " + g.title() + " (`" + g.declared().getSimpleName() + "`)\n");
      assertTrue(section >= 0, g.title());
      int next = page.indexOf("\n## ", section + 1);
      String rows = page.substring(section, next < 0 ? page.length() : next);
      for (CounterDescriptor c : g.declared().getEnumConstants()) {
        assertTrue(
            rows.contains("| " + c.id() + " | `" + c.exportName() + "` | "),
            c.exportName() + " in " + g.title());
      }
    }
  }

  @Test
  void hadoopDisplayNamesReadBackAsTheDeclaredLabels() throws Exception {
    String file = OperatorFiles.render().get(MetricsFiles.HADOOP_DISPLAY_NAMES);
    assertTrue(file.chars().allMatch(ch -> ch < 0x80), "ASCII only");
    Properties p = new Properties();
    p.load(new StringReader(file));
    assertEquals(RdmaShuffleCounter.GROUP_DISPLAY_NAME, p.getProperty("CounterGroupName"));
    for (RdmaShuffleCounter c : RdmaShuffleCounter.values()) {
      assertEquals(c.label(), p.getProperty(c.name() + ".name"), c.name());
    }
    assertEquals(RdmaShuffleCounter.values().length + 1, p.size());
    assertEquals("a\\\\b \\u00B5s", MetricsFiles.propertyValue("a\\b µs"));
  }

  @Test
  void sparkTemplateCarriesTheJarAndTheManagerFlagUncommented() {
    String conf = OperatorFiles.render().get("conf/spark-defaults.conf");
    assertTrue(
        conf.contains(
            "\nspark.shuffle.manager          " + OperatorFiles.SPARK_SHUFFLE_MANAGER + "\n"),
        conf);
    assertTrue(
        conf.contains("\nspark.driver.extraClassPath    " + OperatorFiles.SPARK_PLUGIN_JAR), conf);
    assertTrue(
        conf.contains("\nspark.executor.extraClassPath  " + OperatorFiles.SPARK_PLUGIN_JAR), conf);
  }

  @Test
  void templatesShowTheSecureSettingsAndWhatIsLostWithout() {
    Map<String, String> files = OperatorFiles.render();
    String spark = files.get("conf/spark-defaults.conf");
    assertTrue(spark.contains("\n# spark.authenticate             true\n"), spark);
    assertTrue(spark.replace("\n# ", " ").contains("derives from the application id"), spark);
    String service = files.get("conf/yarn-site-spark.xml");
    assertTrue(
        service.contains(
            "    <name>spark.authenticate</name>\n    <value>true</value>\n  </property>\n  -->"),
        service);
    String mapred = files.get("conf/mapred-site.xml");
    assertTrue(
        mapred.contains(
            "    <name>mapreduce.shuffle-key-length</name>\n    <value>128</value>\n"
                + "  </property>\n  -->"),
        mapred);
  }

  @Test
  void hadoopTemplatesListEachSettingOnTheSideThatReadsIt() {
    Map<String, String> files = OperatorFiles.render();
    String yarn = files.get("conf/yarn-site.xml");
    String mapred = files.get("conf/mapred-site.xml");
    for (ConfigEntry<?> e : OperatorFiles.allEntries()) {
      String key = "<name>" + MapReduceConfig.SCHEMA.key(e) + "</name>";
      boolean hadoop = MapReduceConfig.SCHEMA.declares(e);
      assertEquals(hadoop && e.readOn(ConfigEntry.Side.SERVING), yarn.contains(key), e.key());
      assertEquals(hadoop && e.readOn(ConfigEntry.Side.FETCHING), mapred.contains(key), e.key());
    }
    assertFalse(
        files.get("conf/spark-defaults.conf").contains("fetch.httpFallback"),
        "a Hadoop-only setting must not reach the Spark template");
  }

  @Test
  void hadoopTemplatesAreXmlWhoseOnlyActivePropertiesInstallThePlugin() throws Exception {
    Map<String, String> files = OperatorFiles.render();
    assertEquals(
        Map.of(
            "yarn.nodemanager.aux-services",
            OperatorFiles.HADOOP_SERVICE_NAME,
            "yarn.nodemanager.aux-services.mapreduce_shuffle.class",
            OperatorFiles.HADOOP_SERVICE_CLASS),
        activeProperties(files.get("conf/yarn-site.xml")));
    assertEquals(
        Map.of(
            "mapreduce.job.reduce.shuffle.consumer.plugin.class",
            OperatorFiles.HADOOP_CONSUMER_CLASS),
        activeProperties(files.get("conf/mapred-site.xml")));
  }

  @Test
  void sparkServiceTemplateInstallsTheServiceAndListsTheServingSettingsInSparksSpelling()
      throws Exception {
    String xml = OperatorFiles.render().get("conf/yarn-site-spark.xml");
    assertEquals(
        Map.of(
            "yarn.nodemanager.aux-services",
            "mapreduce_shuffle,spark_shuffle",
            "yarn.nodemanager.aux-services.spark_shuffle.class",
            OperatorFiles.SPARK_SERVICE_CLASS),
        activeProperties(xml));
    for (ConfigEntry<?> e : OperatorFiles.allEntries()) {
      String key = SparkServiceConfig.SCHEMA.key(e);
      assertEquals(
          SparkServiceConfig.SCHEMA.declares(e)
              && e.readOn(ConfigEntry.Side.SERVING)
              && e != RdmaShuffleConfig.PORT,
          xml.contains("<name>" + key + "</name>"),
          key);
    }
    assertTrue(xml.contains("spark.shuffle.rdma.nodeService.port"));
    assertFalse(xml.contains("mapreduce.shuffle.rdma."));
  }

  private static Map<String, String> activeProperties(String xml) throws Exception {
    Document doc =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(new java.io.ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    assertEquals("configuration", doc.getDocumentElement().getTagName());
    Map<String, String> out = new LinkedHashMap<>();
    NodeList props = doc.getElementsByTagName("property");
    for (int i = 0; i < props.getLength(); i++) {
      Element p = (Element) props.item(i);
      out.put(
          p.getElementsByTagName("name").item(0).getTextContent(),
          p.getElementsByTagName("value").item(0).getTextContent());
    }
    return out;
  }
}
