/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.FileMapper;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.serve.ServedAsAnotherUserContract;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * {@link ServedAsAnotherUserContract} on verbs between the Soft-RoCE devices of the guest: the
 * serving process, not root, registers a file it could only open read-only. Which read-only mapping
 * gets pinned is the kernel's: before Linux 6.2 {@code ib_umem_get} pins read-only registrations
 * with {@code FOLL_WRITE | FOLL_FORCE}, which a shared mapping of a read-only descriptor refuses,
 * so files are mapped private; from 6.2 on the file's own pages.
 */
@EnabledIf("io.rdmashuffle.transport.verbs.VerbsTransportTest#verbsAvailable")
class VerbsServedAsAnotherUserTest extends ServedAsAnotherUserContract {
  @Override
  protected String transport() {
    return "verbs";
  }

  @Override
  protected String serverHost() {
    return System.getProperty("rdma.test.serverHost", "198.18.100.1");
  }

  @Override
  protected String clientHost() {
    return System.getProperty("rdma.test.clientHost", "198.18.100.2");
  }

  @Override
  protected long timeoutSeconds() {
    return Long.getLong("rdma.test.readTimeoutSeconds", 30);
  }

  @Test
  void theKernelDecidesWhichReadOnlyMappingIsPinned() throws Exception {
    String release = Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
    String[] v = release.split("[.-]");
    boolean before62 =
        Integer.parseInt(v[0]) < 6 || (Integer.parseInt(v[0]) == 6 && Integer.parseInt(v[1]) < 2);
    RdmaConf conf =
        RdmaConf.of(TestSchema.SPARK_KEYS, Map.of("spark.shuffle.rdma.transport", "verbs"));
    try (Transport t =
        TransportSelector.standard()
            .start(
                conf,
                ApplicationSecrets.of("app-mapping", "mapping-secret-0123456789".getBytes()),
                serverHost(),
                new TransportMetrics())) {
      FileMapper m = t.registrar().fileMapper();
      assertEquals(before62, m.copies(), "kernel " + release + ": files mapped " + m);
    }
  }
}
