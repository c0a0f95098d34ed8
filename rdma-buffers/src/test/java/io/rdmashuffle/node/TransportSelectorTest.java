/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportStartException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import io.rdmashuffle.transport.provider.Availability;
import io.rdmashuffle.transport.provider.PinnedMemory;
import io.rdmashuffle.transport.provider.TransportContext;
import io.rdmashuffle.transport.provider.TransportProvider;
import io.rdmashuffle.transport.tcp.TcpTransportProvider;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the selector probes and starts: a forced transport is the only one probed, {@code auto}
 * probes verbs once (its start is its probe) and tcp only when verbs can't run; the doctor's {@code
 * choose} still probes every transport, to show them all.
 */
@Timeout(60)
class TransportSelectorTest {
  private static final byte[] SECRET = "selector-secret-012345678".getBytes(StandardCharsets.UTF_8);

  /** A verbs provider that can't run here, counting its probes and starts. */
  private static final class CountingVerbs implements TransportProvider {
    final AtomicInteger probes = new AtomicInteger();
    final AtomicInteger starts = new AtomicInteger();

    @Override
    public TransportKind kind() {
      return TransportKind.VERBS;
    }

    @Override
    public Availability probe(RdmaConf conf) {
      probes.incrementAndGet();
      return Availability.unavailable("no RDMA device (test)", List.of());
    }

    @Override
    public Transport start(TransportContext context, PinnedMemory pinned)
        throws TransportStartException {
      starts.incrementAndGet();
      Availability a = probe(context.conf());
      throw new TransportStartException(a.cause());
    }
  }

  /** tcp, counting its probes. */
  private static final class CountingTcp implements TransportProvider {
    final TcpTransportProvider tcp = new TcpTransportProvider();
    final AtomicInteger probes = new AtomicInteger();

    @Override
    public TransportKind kind() {
      return TransportKind.TCP;
    }

    @Override
    public Availability probe(RdmaConf conf) {
      probes.incrementAndGet();
      return tcp.probe(conf);
    }

    @Override
    public Transport start(TransportContext context, PinnedMemory pinned)
        throws TransportStartException {
      return tcp.start(context, pinned);
    }
  }

  private final CountingVerbs verbs = new CountingVerbs();
  private final CountingTcp tcp = new CountingTcp();
  private final TransportSelector selector = new TransportSelector(List.of(verbs, tcp));

  private static RdmaConf conf(String transport) {
    return RdmaConf.of(TestSchema.SPARK_KEYS, Map.of("spark.shuffle.rdma.transport", transport));
  }

  private Transport start(String transport, TransportMetrics metrics)
      throws TransportStartException {
    return selector.start(
        conf(transport), ApplicationSecrets.of("app-selector", SECRET), "127.0.0.1", metrics);
  }

  @Test
  void aForcedTcpTransportNeverProbesVerbs() throws Exception {
    TransportMetrics metrics = new TransportMetrics();
    try (Transport t = start("tcp", metrics)) {
      assertEquals(TransportKind.TCP, t.kind());
    }
    assertEquals(0, verbs.probes.get() + verbs.starts.get(), "verbs probed for a tcp process");
    assertEquals(0, metrics.fallbacks());
  }

  @Test
  void autoProbesVerbsOnceAndFallsBackToTcpCounted() throws Exception {
    TransportMetrics metrics = new TransportMetrics();
    try (Transport t = start("auto", metrics)) {
      assertEquals(TransportKind.TCP, t.kind());
    }
    assertEquals(1, verbs.probes.get(), "verbs probed once per start");
    assertEquals(1, metrics.fallbacks());
  }

  @Test
  void aForcedVerbsTransportThatCantRunFailsWithItsCause() {
    TransportStartException e =
        assertThrows(TransportStartException.class, () -> start("verbs", new TransportMetrics()));
    assertTrue(e.getMessage().contains("no RDMA device (test)"), e.getMessage());
    assertEquals(0, tcp.probes.get(), "tcp probed for a verbs process");
  }

  @Test
  void theDoctorsChoiceProbesEveryTransport() {
    TransportSelector.Choice c = selector.choose(conf("tcp"));
    assertEquals(TransportKind.TCP, c.kind());
    assertEquals(2, c.probes().size(), c.probes().toString());
  }
}
