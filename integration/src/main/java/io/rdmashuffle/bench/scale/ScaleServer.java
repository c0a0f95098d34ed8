/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.OwnerMarker;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.PublishedOutputs;
import io.rdmashuffle.spark.SparkTransportSecret;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The serving process of the scale benchmark, started by {@link ScaleBenchmark}: the serving side
 * an executor runs (a {@link NodeRuntime} serving the outputs it published, each offered for
 * registration at once as a commit does), over the outputs of one {@link ScaleOutputs} folder. It
 * writes their manifest, prints {@code READY}, then answers {@code stats} on standard input with
 * one line {@code STATS key=value ...} (the catalog's and the transport's counters) until its input
 * ends.
 *
 * <pre>
 * ScaleServer DIR OUTPUTS PARTITIONS HOST MANIFEST [spark.shuffle.rdma.KEY=VALUE ...]
 * </pre>
 */
public final class ScaleServer {
  static final String APPLICATION = "bench-scale";

  private ScaleServer() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int outputs = Integer.parseInt(args[1]);
    int partitions = Integer.parseInt(args[2]);
    String host = args[3];
    Path manifest = Path.of(args[4]);
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 5; i < args.length; i++) {
      settings.put(
          args[i].substring(0, args[i].indexOf('=')), args[i].substring(args[i].indexOf('=') + 1));
    }
    byte[] secret = SparkTransportSecret.derive(APPLICATION, "");
    PublishedOutputs published = new PublishedOutputs();
    try (NodeRuntime runtime =
        NodeRuntime.start(
            new NodeRuntime.Context()
                .conf(RdmaConf.of(ScaleReader.SCHEMA, settings))
                .defaultHost(host)
                .secrets(ApplicationSecrets.of(APPLICATION, secret))
                .serving(published))) {
      runtime.catalog().admit(APPLICATION, secret);
      String marker =
          new OwnerMarker(runtime.transport().kind(), runtime.transport().localAddress()).toText();
      int[] all = new int[partitions];
      for (int p = 0; p < partitions; p++) {
        all[p] = p;
      }
      List<ScaleManifest.MapOutput> list = new ArrayList<>();
      for (int m = 0; m < outputs; m++) {
        OutputId id = OutputId.spark(APPLICATION, ScaleOutputs.SHUFFLE, m);
        published.publish(id, ScaleOutputs.data(dir, m));
        runtime.catalog().offer(id);
        list.add(new ScaleManifest.MapOutput(Integer.toString(m), "server@" + host, marker, all));
      }
      new ScaleManifest(APPLICATION, "", Integer.toString(ScaleOutputs.SHUFFLE), partitions, list)
          .write(manifest);
      System.out.println(
          "READY pid="
              + ProcessHandle.current().pid()
              + " maxOpenOutputs="
              + runtime.catalog().limits().maxOpenOutputs());
      System.out.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null) {
        if (line.trim().equals("stats")) {
          StringBuilder b = new StringBuilder("STATS");
          runtime
              .catalog()
              .metrics()
              .snapshot()
              .forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
          runtime
              .metrics()
              .snapshot()
              .forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
          System.out.println(b);
          System.out.flush();
        }
      }
    }
  }
}
