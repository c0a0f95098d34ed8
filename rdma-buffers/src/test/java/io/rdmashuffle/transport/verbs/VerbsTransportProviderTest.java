/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmashuffle.config.ConfigException;
import io.rdmashuffle.config.ConfigSource;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.provider.Availability;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The verbs probe reports the real native library load (runs without any JVM flag). */
@Timeout(60)
class VerbsTransportProviderTest {
  private static RdmaConf conf(Map<String, String> values) {
    return RdmaConf.load(TestSchema.SPARK_KEYS, ConfigSource.of(values));
  }

  @Test
  void probeReportsTheNativeLibraryLoad() {
    Availability a = new VerbsTransportProvider().probe(conf(Map.of()));

    assertFalse(a.available(), "this JVM runs without the export DiSNI needs, or without a device");
    String finding =
        a.findings().stream().filter(f -> f.startsWith("native library: ")).findFirst().orElse("");
    assertFalse(finding.isEmpty(), "findings: " + a.findings());
    // This JVM has no --add-exports for DiSNI, so where the library is bundled it loads but is
    // refused for that reason; without a bundled library the probe says that instead.
    assertTrue(
        finding.contains("--add-exports java.base/sun.nio.ch=ALL-UNNAMED")
            || finding.contains("no " + NativePlatform.resource()),
        finding);
  }

  @Test
  void probeWithoutDeviceNamesTheDeviceFirst() {
    assumeTrue(RdmaDevices.ports().isEmpty(), "this host has an RDMA device");

    Availability a = new VerbsTransportProvider().probe(conf(Map.of()));

    assertEquals("no RDMA device", a.cause());
  }

  @Test
  void laterConfiguredPathIsReportedAsNotUsed() {
    VerbsTransportProvider provider = new VerbsTransportProvider();
    provider.probe(conf(Map.of()));

    Availability a =
        provider.probe(
            conf(Map.of("spark.shuffle.rdma.verbs.nativeLibrary", "/opt/x/libdisni.so")));

    assertTrue(
        a.findings().stream()
            .anyMatch(
                f ->
                    f.startsWith(
                        "spark.shuffle.rdma.verbs.nativeLibrary=/opt/x/libdisni.so not used")),
        "findings: " + a.findings());
  }

  @Test
  void nativeLibrarySettingMustBeAnAbsolutePath() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> conf(Map.of("spark.shuffle.rdma.verbs.nativeLibrary", "libdisni.so")));

    assertTrue(
        e.getMessage().contains("spark.shuffle.rdma.verbs.nativeLibrary=libdisni.so"),
        e.getMessage());
  }
}
