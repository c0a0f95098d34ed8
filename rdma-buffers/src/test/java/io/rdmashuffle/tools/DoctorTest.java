package io.rdmashuffle.tools;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.ConfigSchema;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DoctorTest {
  @TempDir Path dir;

  private static String[] run(String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status =
        Doctor.run(
            ConfigSchema.core("Spark", "spark.shuffle.rdma."),
            args,
            new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return new String[] {Integer.toString(status), bytes.toString(StandardCharsets.UTF_8)};
  }

  @Test
  void namesTheChosenTransportAndWhyEveryOtherWasPassedOver() {
    String[] r = run("doctor", "--set", "spark.shuffle.rdma.transport=tcp");
    assertEquals("0", r[0], r[1]);
    assertTrue(r[1].contains("transport tcp: available"), r[1]);
    assertTrue(r[1].contains("transport verbs: "), r[1]);
    assertTrue(r[1].contains("memlock limit: "), r[1]);
    assertTrue(r[1].contains("chosen: tcp (forced by spark.shuffle.rdma.transport)"), r[1]);
  }

  @Test
  void readsSettingsFromASparkDefaultsFileAndRejectsBadOnes() throws Exception {
    Path conf = dir.resolve("spark-defaults.conf");
    Files.writeString(conf, "# comment\nspark.shuffle.rdma.read.timeout   soon\n");
    String[] r = run("doctor", "--conf", conf.toString());
    assertEquals("2", r[0]);
    assertTrue(r[1].contains("bad setting: spark.shuffle.rdma.read.timeout=soon"), r[1]);
  }

  @Test
  void aForcedTransportThatCantRunExitsNonZeroWithItsCause() {
    String[] r =
        run(
            "--set",
            "spark.shuffle.rdma.transport=verbs",
            "--set",
            "spark.shuffle.rdma.buffers.maxBytes=1t");
    if (r[1].contains("transport verbs: available")) {
      return; // a node with working verbs and a terabyte of memlock: nothing to check here
    }
    assertEquals("1", r[0], r[1]);
    assertTrue(
        r[1].contains("chosen: verbs (forced by spark.shuffle.rdma.transport but unavailable: "),
        r[1]);
  }
}
