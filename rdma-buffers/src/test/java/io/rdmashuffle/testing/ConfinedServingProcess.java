/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.ConfinedFiles;
import io.rdmashuffle.serve.MetaFiles;
import io.rdmashuffle.serve.OpenedOutput;
import io.rdmashuffle.serve.OutputSource;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A separate serving process that finds Spark map outputs below a root dir the way the NodeManager
 * services find theirs ({@link ConfinedFiles}, no owner check): {@code ConfinedServingProcess
 * <transport> <host> <application> <secret> <root> [key=value ...]} serves output {@code (shuffle
 * s, map m)} of {@code application} from {@code root/shuffle_s_m_0.data} and its meta file. Prints
 * {@code READY <port>} when serving and serves until its standard input closes. Tests run it as
 * another user than the owner of the files it serves.
 */
public final class ConfinedServingProcess {
  private ConfinedServingProcess() {}

  public static void main(String[] args) throws Exception {
    String transport = args[0];
    String host = args[1];
    String app = args[2];
    byte[] secret = args[3].getBytes(StandardCharsets.UTF_8);
    Path root = Path.of(args[4]);
    Map<String, String> settings = new HashMap<>();
    settings.put("spark.shuffle.rdma.transport", transport);
    for (int i = 5; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      settings.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    OutputSource source =
        (OutputId id) -> {
          String name = "shuffle_" + id.shuffle() + "_" + id.map() + "_0.data";
          FileChannel ch = ConfinedFiles.open(root, List.of(name), null);
          try {
            Path data = root.resolve(name);
            return new OpenedOutput(
                data,
                ch,
                MetaFiles.read(
                    data, Integer.parseInt(id.shuffle()), Long.parseLong(id.map()), ch.size()));
          } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
          }
        };
    try (NodeRuntime server =
        NodeRuntime.start(
            new NodeRuntime.Context()
                .conf(RdmaConf.of(TestSchema.SPARK_KEYS, settings))
                .defaultHost(host)
                .serving(source)
                .reading(false))) {
      server.catalog().admit(app, secret);
      System.out.println("READY " + server.transport().localAddress().port());
      System.out.flush();
      while (System.in.read() >= 0) {
        // serve until the test closes our input
      }
    }
  }
}
