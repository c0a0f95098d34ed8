/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/**
 * How the harness learns that a daemon is ready: a JSON document from its web endpoint (the Spark
 * Master's {@code /json/}, the ResourceManager's REST API), polled until a condition holds or a
 * deadline passes, with the end of the daemon's log in the failure.
 */
public final class Probes {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private Probes() {}

  /** The JSON at {@code url}, or null when it can't be had now. */
  public static JsonNode json(String url) {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(url))
                  .header("Accept", "application/json")
                  .timeout(Duration.ofSeconds(5))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Polls {@code ready} until it is true.
   *
   * @throws IllegalStateException after {@code timeoutSeconds}, naming {@code what} and ending with
   *     the last lines of {@code logs}
   */
  public static void await(
      String what, long timeoutSeconds, Supplier<Boolean> ready, List<Daemon> logs) {
    long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
    while (!Boolean.TRUE.equals(ready.get())) {
      for (Daemon d : logs) {
        if (!d.alive()) {
          throw new IllegalStateException(what + ": " + d + " exited; " + tail(d.spec().log(), 30));
        }
      }
      if (System.nanoTime() > deadline) {
        StringBuilder b =
            new StringBuilder(what + " did not happen within " + timeoutSeconds + " s");
        for (Daemon d : logs) {
          b.append("\n").append(tail(d.spec().log(), 15));
        }
        throw new IllegalStateException(b.toString());
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting: " + what, e);
      }
    }
  }

  /** The last {@code n} lines of a log, headed by its path. */
  public static String tail(Path log, int n) {
    try {
      List<String> lines = Files.readAllLines(log);
      return log
          + " ends with:\n  "
          + String.join("\n  ", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    } catch (IOException e) {
      return log + ": " + e;
    }
  }
}
