/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the scale readers need to find every block of one shuffle: the application (and its Spark
 * secret, empty without {@code spark.authenticate}), the shuffle, its partition count, and per map
 * output its id, where Spark says it was written ({@code executor@host}), the owner marker its map
 * status carries (who serves it, over which transport) and its non-empty partitions. Written by the
 * serving side ({@code ScaleServeApp} from the driver's map output tracker, {@link ScaleServer} for
 * the benchmark), read by {@link ScaleReader}. One text file, a line per map output, tab-separated.
 */
public record ScaleManifest(
    String application,
    String sparkSecret,
    String shuffle,
    int partitions,
    List<MapOutput> outputs) {

  /**
   * One map output.
   *
   * @param where where it was written ({@code executor@host})
   * @param marker the owner marker of its map status ({@code rdma-shuffle/2 tcp PORT HOST})
   * @param partitions its non-empty partitions, ascending
   */
  public record MapOutput(String map, String where, String marker, int[] partitions) {}

  public ScaleManifest {
    outputs = List.copyOf(outputs);
  }

  /** Every distinct {@code where} of the outputs. */
  public Set<String> owners() {
    Set<String> s = new TreeSet<>();
    for (MapOutput o : outputs) {
      s.add(o.where());
    }
    return s;
  }

  /** Non-empty blocks in all. */
  public long blocks() {
    long n = 0;
    for (MapOutput o : outputs) {
      n += o.partitions().length;
    }
    return n;
  }

  public void write(Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(
        "# rdma-shuffle scale manifest: application, secret (hex), shuffle, partitions, maps");
    lines.add("application\t" + application);
    lines.add("secret\t" + HexFormat.of().formatHex(sparkSecret.getBytes(StandardCharsets.UTF_8)));
    lines.add("shuffle\t" + shuffle);
    lines.add("partitions\t" + partitions);
    for (MapOutput o : outputs) {
      StringBuilder ps = new StringBuilder();
      for (int p : o.partitions()) {
        ps.append(ps.length() == 0 ? "" : ",").append(p);
      }
      lines.add("map\t" + o.map() + "\t" + o.where() + "\t" + o.marker() + "\t" + ps);
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, lines, StandardCharsets.UTF_8);
    Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  public static ScaleManifest read(Path file) throws IOException {
    String application = null;
    String secret = "";
    String shuffle = null;
    int partitions = -1;
    List<MapOutput> outputs = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\t", -1);
      switch (f[0]) {
        case "application" -> application = f[1];
        case "secret" -> secret = new String(HexFormat.of().parseHex(f[1]), StandardCharsets.UTF_8);
        case "shuffle" -> shuffle = f[1];
        case "partitions" -> partitions = Integer.parseInt(f[1]);
        case "map" -> {
          String[] ps = f[4].isEmpty() ? new String[0] : f[4].split(",");
          int[] parts = new int[ps.length];
          for (int i = 0; i < ps.length; i++) {
            parts[i] = Integer.parseInt(ps[i]);
          }
          outputs.add(new MapOutput(f[1], f[2], f[3], parts));
        }
        default -> throw new IOException(file + ": unknown line " + line);
      }
    }
    if (application == null || shuffle == null || partitions < 0) {
      throw new IOException(file + ": no application, shuffle or partitions line");
    }
    return new ScaleManifest(application, secret, shuffle, partitions, outputs);
  }
}
