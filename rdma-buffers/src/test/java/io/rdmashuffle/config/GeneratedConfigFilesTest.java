package io.rdmashuffle.config;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The committed operator templates and configuration page are what the declarations generate. */
class GeneratedConfigFilesTest {
  private static final String REGENERATE =
      "mvn -q -pl rdma-buffers compile exec:java -Dexec.mainClass=io.rdmashuffle.config.ConfigDocs";

  @Test
  void committedFilesMatchTheDeclarations() throws Exception {
    Path root = Paths.get("").toAbsolutePath().getParent();
    for (Map.Entry<String, String> f : ConfigDocs.render().entrySet()) {
      Path p = root.resolve(f.getKey());
      assertTrue(Files.exists(p), p + " is missing; run: " + REGENERATE);
      assertEquals(f.getValue(), Files.readString(p, StandardCharsets.UTF_8),
          p + " drifted from RdmaShuffleConfig; run: " + REGENERATE);
    }
  }

  @Test
  void everyEntryAppearsOnThePageAndInItsEnginesTemplate() {
    Map<String, String> files = ConfigDocs.render();
    for (ConfigEntry<?> e : RdmaShuffleConfig.ALL) {
      assertTrue(files.get("docs/configuration.md").contains("`" + e.key() + "`"), e.key());
      if (e.readBy(KeyStyle.SPARK)) {
        assertTrue(files.get("conf/spark-defaults.conf").contains(e.key(KeyStyle.SPARK)), e.key());
      }
    }
  }

  @Test
  void sparkTemplateCarriesTheJarAndTheManagerFlagUncommented() {
    String conf = ConfigDocs.render().get("conf/spark-defaults.conf");
    assertTrue(conf.contains("\nspark.shuffle.manager          " + ConfigDocs.SPARK_SHUFFLE_MANAGER
        + "\n"), conf);
    assertTrue(conf.contains("\nspark.driver.extraClassPath    " + ConfigDocs.SPARK_PLUGIN_JAR), conf);
    assertTrue(conf.contains("\nspark.executor.extraClassPath  " + ConfigDocs.SPARK_PLUGIN_JAR), conf);
  }
}
