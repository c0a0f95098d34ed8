/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs short system commands ({@code ip}, {@code tc}, {@code kill}) to completion and returns what
 * they printed; a command that fails throws with its exit code and its error output, so the
 * harness's errors say which command the system refused and why.
 */
public final class Shell {
  private Shell() {}

  /** What a finished command printed. */
  public record Result(List<String> command, int exitCode, String out, String err) {
    public boolean ok() {
      return exitCode == 0;
    }

    /** Throws unless the command succeeded. */
    public Result check() {
      if (!ok()) {
        throw new IllegalStateException(
            "`"
                + String.join(" ", command)
                + "` failed (exit "
                + exitCode
                + "): "
                + (err.isBlank() ? out : err).strip());
      }
      return this;
    }
  }

  /** Runs and throws unless it succeeds. */
  public static String run(String... command) {
    return exec(List.of(command), 60).check().out();
  }

  /** Runs; the caller judges the exit code. */
  public static Result exec(String... command) {
    return exec(List.of(command), 60);
  }

  /** Runs with a time limit in seconds; a command past it is killed and reported as exit 124. */
  public static Result exec(List<String> command, long timeoutSeconds) {
    ProcessBuilder pb = new ProcessBuilder(command);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run `" + String.join(" ", command) + "`", e);
    }
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try {
      p.getOutputStream().close();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
        return new Result(
            List.copyOf(command),
            124,
            out.join(),
            err.join() + "\n(killed after " + timeoutSeconds + " s)");
      }
      return new Result(List.copyOf(command), p.exitValue(), out.join(), err.join());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while running `" + String.join(" ", command) + "`", e);
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
          } catch (IOException e) {
            return "";
          }
        });
  }

  /** The non-empty lines of a command's output. */
  public static List<String> lines(String out) {
    List<String> l = new ArrayList<>();
    for (String s : out.split("\n")) {
      if (!s.isBlank()) {
        l.add(s.strip());
      }
    }
    return l;
  }
}
