/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RdmaConfTest {
  private static final ConfigSchema SPARK = ConfigSchema.core("Spark", "spark.shuffle.rdma.");
  private static final ConfigSchema HADOOP =
      ConfigSchema.core("MapReduce", "mapreduce.shuffle.rdma.");
  private static final ConfigEntry<Boolean> ENGINE_ONLY =
      ConfigEntry.builder("engine.only", ConfigType.BOOLEAN).defaultValue(false).doc("x").build();

  private static ConfigException bad(ConfigSchema style, String key, String value) {
    return assertThrows(ConfigException.class, () -> RdmaConf.of(style, Map.of(key, value)));
  }

  @Test
  void defaultsApplyWhenNothingIsSet() {
    RdmaConf c = RdmaConf.defaults(SPARK);
    assertEquals(TransportKind.AUTO, c.get(RdmaShuffleConfig.TRANSPORT));
    assertEquals(Duration.ofSeconds(30), c.get(RdmaShuffleConfig.READ_TIMEOUT));
    assertEquals(512L << 20, c.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES));
    assertEquals(Map.of(), c.explicitlySet());
  }

  @Test
  void sparkAndHadoopReadTheSameEntriesUnderTheirPrefixes() {
    RdmaConf spark = RdmaConf.of(SPARK, Map.of("spark.shuffle.rdma.transport", "TCP"));
    RdmaConf hadoop = RdmaConf.of(HADOOP, Map.of("mapreduce.shuffle.rdma.transport", "tcp"));
    assertEquals(TransportKind.TCP, spark.get(RdmaShuffleConfig.TRANSPORT));
    assertEquals(TransportKind.TCP, hadoop.get(RdmaShuffleConfig.TRANSPORT));
    assertEquals("mapreduce.shuffle.rdma.transport", hadoop.keyOf(RdmaShuffleConfig.TRANSPORT));
  }

  @Test
  void sizesAndDurationsTakeUnits() {
    RdmaConf c =
        RdmaConf.of(
            SPARK,
            Map.of(
                "spark.shuffle.rdma.buffers.maxBytes", "2g",
                "spark.shuffle.rdma.buffers.chunkSize", "4M",
                "spark.shuffle.rdma.read.timeout", "2min",
                "spark.shuffle.rdma.connect.timeout", "1500"));
    assertEquals(2L << 30, c.get(RdmaShuffleConfig.BUFFERS_MAX_BYTES));
    assertEquals(4L << 20, c.get(RdmaShuffleConfig.BUFFERS_CHUNK_SIZE));
    assertEquals(Duration.ofMinutes(2), c.get(RdmaShuffleConfig.READ_TIMEOUT));
    assertEquals(Duration.ofMillis(1500), c.get(RdmaShuffleConfig.CONNECT_TIMEOUT));
  }

  @Test
  void aBadValueFailsNamingKeyAndValue() {
    ConfigException e = bad(SPARK, "spark.shuffle.rdma.transport", "infiniband");
    assertEquals(
        "spark.shuffle.rdma.transport=infiniband: expected one of auto | verbs | tcp",
        e.getMessage());
    e = bad(HADOOP, "mapreduce.shuffle.rdma.read.timeout", "soon");
    assertTrue(
        e.getMessage().startsWith("mapreduce.shuffle.rdma.read.timeout=soon: "), e.getMessage());
    e = bad(SPARK, "spark.shuffle.rdma.buffers.maxBytes", "12 parsecs");
    assertTrue(e.getMessage().startsWith("spark.shuffle.rdma.buffers.maxBytes=12 parsecs: "));
  }

  @Test
  void valuesOutsideTheValidRangeFailNamingTheBound() {
    ConfigException e = bad(SPARK, "spark.shuffle.rdma.port", "70000");
    assertEquals("spark.shuffle.rdma.port=70000: must be at most 65535", e.getMessage());
    e = bad(SPARK, "spark.shuffle.rdma.buffers.chunkSize", "3m");
    assertEquals("spark.shuffle.rdma.buffers.chunkSize=3m: must be a power of two", e.getMessage());
    e = bad(SPARK, "spark.shuffle.rdma.read.maxOutstandingRequests", "0");
    assertTrue(e.getMessage().contains("must be at least 1"), e.getMessage());
    e = bad(SPARK, "spark.shuffle.rdma.memory.pieceSize", "100000");
    assertTrue(e.getMessage().contains("a multiple of 64k"), e.getMessage());
    e = bad(SPARK, "spark.shuffle.rdma.buffers.maxBytes", "99999999999999999999t");
    assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
  }

  @Test
  void aMisspelledKeyUnderOurPrefixFailsInsteadOfBeingIgnored() {
    ConfigException e = bad(SPARK, "spark.shuffle.rdma.transprot", "tcp");
    assertTrue(
        e.getMessage().startsWith("spark.shuffle.rdma.transprot=tcp: unknown setting"),
        e.getMessage());
    RdmaConf.of(SPARK, Map.of("spark.shuffle.compress", "true", "other.key", "x"));
  }

  @Test
  void inconsistentSettingsFailNamingBothKeys() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                RdmaConf.of(
                    SPARK,
                    Map.of(
                        "spark.shuffle.rdma.buffers.maxBytes", "8m",
                        "spark.shuffle.rdma.buffers.chunkSize", "16m")));
    assertTrue(e.getMessage().contains("spark.shuffle.rdma.buffers.maxBytes=8m"), e.getMessage());
    assertTrue(e.getMessage().contains("spark.shuffle.rdma.buffers.chunkSize=16m"), e.getMessage());
  }

  @Test
  void everyDeclarationIsCompleteAndKeysAreUnique() {
    java.util.Set<String> keys = new java.util.HashSet<>();
    for (ConfigEntry<?> e : RdmaShuffleConfig.ALL) {
      assertTrue(keys.add(e.key()), "declared twice: " + e.key());
      assertFalse(e.doc().isBlank(), e.key());
      assertEquals(
          e.defaultValue(),
          e.parse(SPARK.key(e), e.defaultText()),
          "default of " + e.key() + " must survive its own formatting");
    }
  }

  @Test
  void withChangesOnlyTheNamedEntries() {
    RdmaConf c =
        RdmaConf.of(SPARK, Map.of("spark.shuffle.rdma.port", "7000"))
            .with(Map.of(RdmaShuffleConfig.TRANSPORT, "tcp"));
    assertEquals(7000, c.get(RdmaShuffleConfig.PORT));
    assertEquals(TransportKind.TCP, c.get(RdmaShuffleConfig.TRANSPORT));
  }

  @Test
  void anAdaptersOwnSettingsAreReadOnlyThroughItsSchema() {
    ConfigSchema engine = ConfigSchema.of("Engine", "engine.rdma.", java.util.List.of(ENGINE_ONLY));
    RdmaConf c =
        RdmaConf.of(
            engine, Map.of("engine.rdma.engine.only", "true", "engine.rdma.transport", "tcp"));
    assertTrue(c.get(ENGINE_ONLY));
    assertEquals(TransportKind.TCP, c.get(RdmaShuffleConfig.TRANSPORT));
    // another schema does not know the setting: a typo there, and no value to read
    bad(SPARK, "spark.shuffle.rdma.engine.only", "true");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> RdmaConf.defaults(SPARK).get(ENGINE_ONLY));
    assertTrue(e.getMessage().contains("engine.only"), e.getMessage());
  }

  @Test
  void anAdapterCannotRedeclareACoreSetting() {
    ConfigEntry<String> twin =
        ConfigEntry.builder("transport", ConfigType.STRING).defaultValue("").doc("x").build();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ConfigSchema.of("Engine", "engine.rdma.", java.util.List.of(twin)));
    assertTrue(e.getMessage().contains("transport declared twice"), e.getMessage());
  }
}
