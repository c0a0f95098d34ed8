/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.TransportContractTest;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The transport contract on verbs, between two Soft-RoCE devices: the serving transport on {@code
 * rdma.test.serverHost} (default 198.18.100.1, rxe0 in the guest of {@code
 * integration/softroce/run-in-guest.sh}), the reading one on {@code rdma.test.clientHost} (default
 * 198.18.100.2, rxe1). Runs where an RDMA device port is active and the native library loads;
 * elsewhere it is skipped, and the guest run is what proves it.
 */
@EnabledIf("verbsAvailable")
class VerbsTransportTest extends TransportContractTest {
  static boolean verbsAvailable() {
    return RdmaDevices.ports().stream().anyMatch(RdmaDevices.Port::active)
        && new VerbsTransportProvider().probe(RdmaConf.defaults(TestSchema.SPARK_KEYS)).available();
  }

  /** The emulated guest runs READs at tens of MB/s on a loaded host: generous timeouts. */
  @Override
  protected long readTimeoutSeconds() {
    return Long.getLong("rdma.test.readTimeoutSeconds", 30);
  }

  @Override
  protected long connectTimeoutSeconds() {
    return Long.getLong("rdma.test.connectTimeoutSeconds", 30);
  }

  @Override
  protected TransportKind kind() {
    return TransportKind.VERBS;
  }

  @Override
  protected String serverHost() {
    return System.getProperty("rdma.test.serverHost", "198.18.100.1");
  }

  @Override
  protected String clientHost() {
    return System.getProperty("rdma.test.clientHost", "198.18.100.2");
  }
}
