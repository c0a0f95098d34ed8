/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
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
  void saysWhichSecurityModeRuns() throws Exception {
    String[] off = run("doctor", "--set", "spark.shuffle.rdma.transport=tcp");
    assertTrue(
        off[1].contains(
            "security: spark.authenticate is off: the transport's secret derives from the"
                + " application id, which is not secret"),
        off[1]);
    Path conf = dir.resolve("spark-defaults.conf");
    Files.writeString(conf, "spark.authenticate true\nspark.shuffle.rdma.transport tcp\n");
    String[] on = run("doctor", "--conf", conf.toString());
    assertEquals("0", on[0], on[1]);
    assertTrue(
        on[1].contains("security: spark.authenticate=true: peers prove the application's secret"),
        on[1]);
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

  @Test
  void theNodeServiceCheckTellsOurServerFromNothingAndFromAnotherProtocol() throws Exception {
    io.rdmashuffle.transport.Transport server =
        io.rdmashuffle.node.TransportSelector.standard()
            .start(
                io.rdmashuffle.config.RdmaConf.of(
                    ConfigSchema.core("Spark", "spark.shuffle.rdma."),
                    java.util.Map.of("spark.shuffle.rdma.transport", "tcp")),
                io.rdmashuffle.transport.handshake.ApplicationSecrets.of(
                    "app-doctor", "doctor-secret-0123456789".getBytes(StandardCharsets.UTF_8)),
                "127.0.0.1",
                new io.rdmashuffle.metrics.TransportMetrics());
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0)) {
      String[] ok =
          run(
              "doctor",
              "--set",
              "spark.shuffle.rdma.transport=tcp",
              "--node-service",
              "127.0.0.1:" + server.localAddress().port());
      assertEquals("0", ok[0], ok[1]);
      assertTrue(ok[1].contains("an rdma-shuffle connection server answers"), ok[1]);

      // something that accepts and never speaks: no answer within the connect timeout
      String[] mute =
          run(
              "doctor",
              "--set",
              "spark.shuffle.rdma.transport=tcp",
              "--set",
              "spark.shuffle.rdma.connect.timeout=300ms",
              "--node-service",
              "127.0.0.1:" + silent.getLocalPort());
      assertEquals("1", mute[0], mute[1]);
      assertTrue(mute[1].contains("no answer within 300 ms"), mute[1]);
    } finally {
      server.close();
    }
    int free;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      free = s.getLocalPort();
    }
    String[] none =
        run(
            "doctor",
            "--set",
            "spark.shuffle.rdma.transport=tcp",
            "--node-service",
            "127.0.0.1:" + free);
    assertEquals("1", none[0], none[1]);
    assertTrue(none[1].contains("not reachable"), none[1]);
  }
}
