/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.tools.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The command line of {@code cluster}: its mistakes are told before root or a cluster is needed.
 */
class ClusterCommandTest {
  @Test
  void helpNamesWhatAWorkerOffers() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    assertEquals(
        0,
        ClusterCommand.run(Cli.of("help"), new PrintStream(bytes, true, StandardCharsets.UTF_8)));
    String help = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(help.contains("[--worker-cores 2] [--worker-memory 1g]"), help);
  }

  @Test
  void aWorkerMustOfferACoreAndASize() {
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    for (String[] wrong :
        new String[][] {
          {"up", "--worker-cores", "0"},
          {"up", "--worker-memory", "lots"},
          {"up", "--worker-memory", "2"},
        }) {
      Cli.UsageError e =
          assertThrows(Cli.UsageError.class, () -> ClusterCommand.run(Cli.of(wrong), out));
      assertTrue(e.getMessage().contains("--worker-"), e.getMessage());
    }
  }
}
