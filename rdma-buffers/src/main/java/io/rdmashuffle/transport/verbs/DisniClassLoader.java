/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;

/**
 * Defines DiSNI's classes, and ours that use DiSNI, itself (child first), so that DiSNI's own
 * {@code System.loadLibrary("disni")} asks this loader's {@link #findLibrary} where the library is:
 * the JDK consults the class loader of the calling class before {@code java.library.path}. That is
 * how a library extracted from our jar (or set by the operator) gets loaded with nothing on {@code
 * java.library.path}, without touching DiSNI.
 *
 * <p>Class bytes come from the parent's resources, so it works whatever the parent is (the
 * application class path, Spark's or YARN's class loaders, a fat jar). Everything outside {@link
 * #CHILD_FIRST} is the parent's: our transport SPI, slf4j, the JDK. Code running in here talks to
 * the rest of rdma-shuffle only through types the parent defines.
 *
 * <p>One instance per load attempt, owned by {@link NativeLibrary}; the JDK lets a native library
 * path be loaded by one class loader only, so each instance gets its own path.
 */
final class DisniClassLoader extends ClassLoader {
  /** Package prefixes defined here rather than by the parent. */
  static final List<String> CHILD_FIRST =
      List.of("com.ibm.disni.", "io.rdmashuffle.transport.verbs.disni.");

  static {
    registerAsParallelCapable();
  }

  private final Path library;

  DisniClassLoader(ClassLoader parent, Path library) {
    super("rdma-shuffle-disni", parent);
    this.library = library;
  }

  static boolean isChildFirst(String className) {
    for (String prefix : CHILD_FIRST) {
      if (className.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    if (!isChildFirst(name)) {
      return super.loadClass(name, resolve);
    }
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        c = findClass(name);
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }

  @Override
  protected Class<?> findClass(String name) throws ClassNotFoundException {
    if (!isChildFirst(name)) {
      throw new ClassNotFoundException(name);
    }
    String resource = name.replace('.', '/') + ".class";
    try (InputStream in = getParent().getResourceAsStream(resource)) {
      if (in == null) {
        throw new ClassNotFoundException(name + " (no " + resource + " on the class path)");
      }
      byte[] bytes = in.readAllBytes();
      return defineClass(name, bytes, 0, bytes.length);
    } catch (IOException e) {
      throw new ClassNotFoundException(name, e);
    }
  }

  /** Consulted by {@code System.loadLibrary} for classes defined here. */
  @Override
  protected String findLibrary(String libname) {
    return "disni".equals(libname) ? library.toAbsolutePath().toString() : null;
  }

  Path library() {
    return library;
  }
}
