/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.bench;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link OursTcpFetcher} of another build of this project, loaded in a class loader of its own from
 * that build's class folders ({@code integration-classes:rdma-buffers-classes}) and the shared
 * dependencies, so two builds of the tcp transport can be measured in one process.
 */
final class OtherBuildFetcher implements FetchSide {
  private final String name;
  private final Object side;
  private final Method fetchAll;

  OtherBuildFetcher(String name, String classDirs, String dependencies, Path file)
      throws Exception {
    this.name = name;
    ClassLoader l =
        new URLClassLoader(
            urls(classDirs + ":" + dependencies), ClassLoader.getPlatformClassLoader());
    Class<?> c = l.loadClass(OursTcpFetcher.class.getName());
    Constructor<?> k = c.getDeclaredConstructor(Path.class);
    k.setAccessible(true);
    side = k.newInstance(file);
    fetchAll = c.getMethod("fetchAll", int.class, int.class, int.class, int.class);
    fetchAll.setAccessible(true);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public long fetchAll(int blockSize, int blocks, int passes, int window) throws Exception {
    return (long) fetchAll.invoke(side, blockSize, blocks, passes, window);
  }

  /** The other build's transports are left to the process, which ends with the benchmark. */
  @Override
  public void close() {}

  private static URL[] urls(String path) throws Exception {
    List<URL> u = new ArrayList<>();
    for (String p : path.split(":")) {
      if (!p.isEmpty()) {
        u.add(Paths.get(p).toUri().toURL());
      }
    }
    return u.toArray(new URL[0]);
  }
}
