/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * What starts one process of the cluster: its name ({@code nodemanager}), command line, the
 * environment added to the harness's own, and the file its output goes to. Saved beside the
 * cluster's state so {@code cluster restart} can start a daemon again from another process.
 */
public record ProcessSpec(String name, List<String> argv, Map<String, String> env, Path log) {
  public ProcessSpec {
    argv = List.copyOf(argv);
    env = Map.copyOf(env);
  }

  public void save(Path file) {
    Properties p = new Properties();
    p.setProperty("name", name);
    p.setProperty("log", log.toString());
    for (int i = 0; i < argv.size(); i++) {
      p.setProperty("argv." + i, argv.get(i));
    }
    env.forEach((k, v) -> p.setProperty("env." + k, v));
    try {
      Files.createDirectories(file.getParent());
      try (OutputStream out = Files.newOutputStream(file)) {
        p.store(out, "a daemon of the rdma-shuffle cluster harness");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  public static ProcessSpec load(Path file) {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    List<String> argv = new ArrayList<>();
    for (int i = 0; p.containsKey("argv." + i); i++) {
      argv.add(p.getProperty("argv." + i));
    }
    Map<String, String> env = new LinkedHashMap<>();
    for (String k : p.stringPropertyNames()) {
      if (k.startsWith("env.")) {
        env.put(k.substring(4), p.getProperty(k));
      }
    }
    return new ProcessSpec(p.getProperty("name"), argv, env, Path.of(p.getProperty("log")));
  }
}
