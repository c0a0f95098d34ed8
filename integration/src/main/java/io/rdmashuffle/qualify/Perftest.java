/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * perftest's {@code ib_read_bw} and {@code ib_read_lat} between two hosts: the server on the
 * serving host's device, the client on the reader's, connected through RDMA-CM ({@code -R}, as
 * rdma-shuffle connects) or, when {@code --gid-index} is given, through perftest's own exchange
 * with that GID ({@code -x}, as tools that pick their GID do).
 */
final class Perftest {
  /** One run: the figure (MB/s, or typical µs), or what went wrong. */
  record Result(double value, String failure, String output) {
    boolean ok() {
      return failure == null;
    }
  }

  private final Remote remote;
  private final long timeoutSeconds;
  private int port = 18515;

  Perftest(Remote remote, long timeoutSeconds) {
    this.remote = remote;
    this.timeoutSeconds = timeoutSeconds;
  }

  /**
   * Runs {@code tool} ({@code ib_read_bw} or {@code ib_read_lat}) for one size.
   *
   * @param server the serving host (its address, as --hosts names it) and its device
   * @param client the reading host and its device
   */
  Result run(
      String tool,
      String server,
      String serverDevice,
      String client,
      String clientDevice,
      int size,
      int iterations,
      Integer gidIndex) {
    int p = port++;
    List<String> common =
        new ArrayList<>(
            List.of("-F", "-s", Integer.toString(size), "-n", Integer.toString(iterations)));
    common.addAll(List.of("-p", Integer.toString(p)));
    if (gidIndex == null) {
      common.add("-R");
    } else {
      common.addAll(List.of("-x", Integer.toString(gidIndex)));
    }
    List<String> serverCommand = new ArrayList<>(List.of("stdbuf", "-oL", "-eL", tool));
    serverCommand.addAll(common);
    serverCommand.addAll(List.of("-d", serverDevice));
    List<String> clientCommand = new ArrayList<>(List.of(tool));
    clientCommand.addAll(common);
    clientCommand.addAll(List.of("-d", clientDevice, server));
    Process s = null;
    try {
      s = remote.start(remote.argv(server, serverCommand));
      s.getOutputStream().close();
      StringBuilder serverOut = new StringBuilder();
      BufferedReader sr =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      Process started = s;
      Thread pump =
          new Thread(
              () -> {
                try {
                  String line;
                  while ((line = sr.readLine()) != null) {
                    synchronized (serverOut) {
                      serverOut.append(line).append('\n');
                      serverOut.notifyAll();
                    }
                  }
                } catch (java.io.IOException e) {
                  // the server ended
                }
              },
              "perftest-server");
      pump.setDaemon(true);
      pump.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      synchronized (serverOut) {
        while (serverOut.indexOf("Waiting for client") < 0
            && started.isAlive()
            && System.nanoTime() < deadline) {
          serverOut.wait(200);
        }
      }
      if (!started.isAlive()) {
        return new Result(Double.NaN, "the server ended at once", serverOut.toString());
      }
      java.nio.file.Path log = java.nio.file.Files.createTempFile("perftest-client", ".txt");
      String clientOut;
      try {
        Process c =
            new ProcessBuilder(remote.argv(client, clientCommand))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        boolean ended = c.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!ended) {
          c.destroyForcibly();
          c.waitFor(10, TimeUnit.SECONDS);
        }
        clientOut = java.nio.file.Files.readString(log, StandardCharsets.UTF_8);
        if (!ended) {
          return new Result(
              Double.NaN, "the client did not end within " + timeoutSeconds + " s", clientOut);
        }
        if (c.exitValue() != 0) {
          return new Result(
              Double.NaN, "the client exited with status " + c.exitValue(), clientOut);
        }
      } finally {
        java.nio.file.Files.deleteIfExists(log);
      }
      double v = parse(tool, clientOut, size);
      return Double.isNaN(v)
          ? new Result(v, "no result row for " + size + " bytes", clientOut)
          : new Result(v, null, clientOut);
    } catch (java.io.IOException e) {
      return new Result(Double.NaN, "could not start: " + e.getMessage(), "");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(Double.NaN, "interrupted", "");
    } finally {
      if (s != null) {
        s.destroy();
      }
    }
  }

  /**
   * The figure of perftest's result row (the line whose first field is the size): {@code
   * ib_read_bw} "#bytes #iterations BW-peak BW-average MsgRate" gives the average MB/s, {@code
   * ib_read_lat} "#bytes #iterations t_min t_max t_typical ..." the typical µs; NaN without one.
   */
  static double parse(String tool, String output, int size) {
    for (String line : output.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length >= 5 && f[0].equals(Integer.toString(size))) {
        try {
          return Double.parseDouble(tool.equals("ib_read_bw") ? f[3] : f[4]);
        } catch (NumberFormatException e) {
          return Double.NaN;
        }
      }
    }
    return Double.NaN;
  }

  /** The last lines of an output, for a failure's message. */
  static String tail(String output, int lines) {
    List<String> all = output.lines().filter(l -> !l.isBlank()).toList();
    return all.isEmpty()
        ? "(no output)"
        : String.join(" / ", all.subList(Math.max(0, all.size() - lines), all.size()));
  }
}
