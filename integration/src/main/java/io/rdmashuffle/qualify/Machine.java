/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a host check asks of the machine beyond its kernel files: which network interface carries an
 * address, and the output of a command ({@code dcb}, {@code ib_read_bw}'s presence). An interface
 * so tests can answer for a machine they describe.
 */
interface Machine {
  /** The network interface that carries {@code address}, or empty. */
  String interfaceOf(InetAddress address);

  /** The IPv4 addresses of {@code netdev}, in order. */
  List<InetAddress> addressesOf(String netdev);

  /** Where {@code program} is on the PATH, or empty. */
  String which(String program);

  /** Runs a command (30 s at most): its exit status and its output, both streams together. */
  Ran run(List<String> command);

  record Ran(int status, String output) {}

  /** This machine. */
  static Machine local() {
    return new Machine() {
      @Override
      public String interfaceOf(InetAddress address) {
        try {
          NetworkInterface nif = NetworkInterface.getByInetAddress(address);
          return nif == null ? "" : nif.getName();
        } catch (IOException e) {
          return "";
        }
      }

      @Override
      public List<InetAddress> addressesOf(String netdev) {
        List<InetAddress> out = new ArrayList<>();
        try {
          NetworkInterface nif = NetworkInterface.getByName(netdev);
          if (nif != null) {
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
              if (a instanceof java.net.Inet4Address) {
                out.add(a);
              }
            }
          }
        } catch (IOException e) {
          return out;
        }
        return out;
      }

      @Override
      public String which(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
          java.nio.file.Path p = java.nio.file.Path.of(dir.isEmpty() ? "." : dir, program);
          if (java.nio.file.Files.isExecutable(p)) {
            return p.toString();
          }
        }
        return "";
      }

      @Override
      public Ran run(List<String> command) {
        try {
          Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
          p.getOutputStream().close();
          byte[] out = p.getInputStream().readAllBytes();
          if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Ran(-1, "did not end within 30 s");
          }
          return new Ran(p.exitValue(), new String(out, StandardCharsets.UTF_8).trim());
        } catch (IOException e) {
          return new Ran(-1, e.getMessage());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return new Ran(-1, "interrupted");
        }
      }
    };
  }
}
