/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the native library DiSNI runs on ({@code libdisni.so}, our C implementation in {@code
 * src/main/c}) once per process, and says why when it can't: probe once, cache the cause, expose
 * {@link #isAvailable()} and {@link #unavailabilityCause()} (Netty's {@code Epoll} pattern).
 * Nothing here throws {@link UnsatisfiedLinkError} at a later first use: the only place the library
 * is loaded is the probe.
 *
 * <h2>How it loads with nothing on java.library.path</h2>
 *
 * DiSNI calls {@code System.loadLibrary("disni")} in a static initializer and does not catch its
 * failure. The JDK asks the class loader of the calling class ({@code ClassLoader.findLibrary})
 * before it searches {@code java.library.path}, so DiSNI's classes, and ours in {@code
 * io.rdmashuffle.transport.verbs.disni} that use them, are defined by a {@link DisniClassLoader}
 * (child first, bytes from the class path) whose {@code findLibrary} answers with the library
 * chosen here:
 *
 * <ol>
 *   <li>the path set by the operator in {@code verbs.nativeLibrary}, if any;
 *   <li>else a {@code libdisni.so} in a folder of {@code java.library.path};
 *   <li>else {@code native/<os>-<arch>/libdisni.so} from the rdma-buffers jar ({@link
 *       NativePlatform}), copied into a fresh private temporary folder, which is deleted again
 *       right after loading (Linux keeps the mapping; each load gets its own path, since the JDK
 *       lets one path be loaded by one class loader only).
 * </ol>
 *
 * Then the DiSNI side is used once ({@code disni.NativeCheck}): DiSNI's own version check runs, and
 * the library reports its version and layout sizes. DiSNI also needs {@code --add-exports
 * java.base/sun.nio.ch=ALL-UNNAMED} (or {@code --add-opens}) on JDK 16+, which is checked here as
 * well.
 *
 * <p>The code that uses DiSNI is reached through {@link #newInstance}, so that it runs inside that
 * class loader.
 */
public final class NativeLibrary {
  private static final Logger LOG = LoggerFactory.getLogger(NativeLibrary.class);

  static final String DISPATCHER_CLASS = "com/ibm/disni/verbs/impl/NativeDispatcher.class";
  static final String CHECK_CLASS = "io.rdmashuffle.transport.verbs.disni.NativeCheck";
  static final String EXPORTS_FLAG = "--add-exports java.base/sun.nio.ch=ALL-UNNAMED";

  /** Where the loaded library came from. */
  public enum Source {
    /** The operator's {@code verbs.nativeLibrary}. */
    CONFIGURED,
    /** A folder of {@code java.library.path}. */
    LIBRARY_PATH,
    /** The copy inside the rdma-buffers jar. */
    BUNDLED
  }

  private static NativeLibrary processWide;

  private final String requested;
  private final Source source;
  private final String location;
  private final DisniClassLoader loader;
  private final Map<String, Integer> info;
  private final Throwable cause;

  private NativeLibrary(
      String requested,
      Source source,
      String location,
      DisniClassLoader loader,
      Map<String, Integer> info,
      Throwable cause) {
    this.requested = requested;
    this.source = source;
    this.location = location;
    this.loader = loader;
    this.info = info == null ? Map.of() : Map.copyOf(info);
    this.cause = cause;
  }

  /** The library of this process, loaded on the first call with {@code verbs.nativeLibrary}. */
  public static NativeLibrary load(RdmaConf conf) {
    return load(
        conf.get(RdmaShuffleConfig.VERBS_NATIVE_LIBRARY),
        conf.keyOf(RdmaShuffleConfig.VERBS_NATIVE_LIBRARY));
  }

  /**
   * The library of this process. The first call loads it (from {@code configuredPath} when not
   * empty); later calls return that result whatever path they name, since a process can load it
   * once only.
   */
  public static synchronized NativeLibrary load(String configuredPath, String settingName) {
    if (processWide == null) {
      processWide =
          attempt(
              configuredPath,
              settingName,
              NativeLibrary.class.getClassLoader(),
              System.getProperty("java.library.path", ""));
      if (processWide.isAvailable()) {
        LOG.info("rdma-shuffle native library loaded: {}", processWide.describe());
      } else {
        LOG.info("rdma-shuffle native library unavailable: {}", processWide.cause.getMessage());
      }
    }
    return processWide;
  }

  /** One load attempt, not cached: the probe behind {@link #load}, and for tests. */
  static NativeLibrary attempt(
      String configuredPath, String settingName, ClassLoader parent, String libraryPath) {
    String requested = configuredPath == null ? "" : configuredPath.trim();
    if (parent.getResource(DISPATCHER_CLASS) == null) {
      return failed(
          requested,
          null,
          "",
          new UnsatisfiedLinkError("DiSNI (com.ibm.disni:disni:2.1) is not on the class path"));
    }
    Located found = locate(requested, settingName, parent, libraryPath);
    if (found.error() != null) {
      return failed(requested, found.source(), found.location(), found.error());
    }
    DisniClassLoader loader = new DisniClassLoader(parent, found.file());
    try {
      Map<String, Integer> info = runCheck(loader);
      if (!Object.class.getModule().isExported("sun.nio.ch", loader.getUnnamedModule())) {
        return failed(
            requested,
            found.source(),
            found.location(),
            new UnsatisfiedLinkError(
                "the library loads, but DiSNI needs the JVM option "
                    + EXPORTS_FLAG
                    + " (or --add-opens java.base/sun.nio.ch=ALL-UNNAMED) to read buffer addresses"));
      }
      return new NativeLibrary(requested, found.source(), found.location(), loader, info, null);
    } catch (Exception | LinkageError e) {
      return failed(
          requested,
          found.source(),
          found.location(),
          linkError("loading " + found.location() + " failed: " + describe(e) + hint(e), e));
    } finally {
      deleteQuietly(found.extractedDir());
    }
  }

  /** The library file chosen, or why none could be; extractedDir is ours to delete. */
  private record Located(
      Source source, Path file, Path extractedDir, String location, UnsatisfiedLinkError error) {
    static Located missing(Source source, String location, String message) {
      return new Located(source, null, null, location, new UnsatisfiedLinkError(message));
    }
  }

  private static Located locate(
      String requested, String settingName, ClassLoader parent, String libraryPath) {
    if (!requested.isEmpty()) {
      Path file = Paths.get(requested);
      if (!file.isAbsolute() || !Files.isRegularFile(file)) {
        return Located.missing(
            Source.CONFIGURED,
            requested,
            settingName
                + "="
                + requested
                + ": "
                + (file.isAbsolute() ? "no such file" : "not an absolute path"));
      }
      return new Located(Source.CONFIGURED, file, null, requested, null);
    }
    Path onPath = findOnLibraryPath(libraryPath);
    if (onPath != null) {
      return new Located(Source.LIBRARY_PATH, onPath, null, onPath.toString(), null);
    }
    URL url = parent.getResource(NativePlatform.resource());
    if (url == null) {
      return Located.missing(
          Source.BUNDLED,
          "",
          "no "
              + NativePlatform.resource()
              + " in the rdma-buffers jar (it was built where"
              + " rdma-core's headers were missing, or for another platform than "
              + NativePlatform.folder()
              + "); none on java.library.path either; set "
              + settingName
              + " to a libdisni.so");
    }
    return extract(url);
  }

  /** Copies the bundled library into a fresh folder only this user can enter. */
  private static Located extract(URL url) {
    String location = NativePlatform.resource() + " from the rdma-buffers jar";
    Path dir = null;
    try {
      dir = Files.createTempDirectory("rdma-shuffle-native-"); // rwx------ on POSIX
      Path file = dir.resolve(NativePlatform.LIBRARY_FILE);
      try (InputStream in = url.openStream()) {
        Files.copy(in, file);
      }
      return new Located(Source.BUNDLED, file, dir, location, null);
    } catch (IOException e) {
      deleteQuietly(dir);
      UnsatisfiedLinkError error =
          linkError(
              "cannot extract "
                  + NativePlatform.resource()
                  + " to a temporary folder (java.io.tmpdir="
                  + System.getProperty("java.io.tmpdir")
                  + "): "
                  + e,
              e);
      return new Located(Source.BUNDLED, null, null, location, error);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Integer> runCheck(DisniClassLoader loader) throws Exception {
    Class<?> check = Class.forName(CHECK_CLASS, true, loader);
    return ((Callable<Map<String, Integer>>) check.getConstructor().newInstance()).call();
  }

  private static Path findOnLibraryPath(String libraryPath) {
    for (String dir : libraryPath.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        Path candidate = Paths.get(dir, NativePlatform.LIBRARY_FILE);
        if (Files.isRegularFile(candidate)) {
          return candidate.toAbsolutePath();
        }
      }
    }
    return null;
  }

  private static NativeLibrary failed(
      String requested, Source source, String location, Throwable cause) {
    return new NativeLibrary(requested, source, location, null, null, cause);
  }

  private static UnsatisfiedLinkError linkError(String message, Throwable cause) {
    UnsatisfiedLinkError e = new UnsatisfiedLinkError(message);
    e.initCause(cause);
    return e;
  }

  private static String describe(Throwable thrown) {
    Throwable e = thrown;
    while ((e instanceof InvocationTargetException || e instanceof ExceptionInInitializerError)
        && e.getCause() != null) {
      e = e.getCause();
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = e.toString();
    return root == e ? text : text + " (cause: " + root + ")";
  }

  private static String hint(Throwable e) {
    String text = describe(e);
    if (text.contains("libibverbs") || text.contains("librdmacm")) {
      return "; install rdma-core's libraries (Debian: libibverbs1 librdmacm1 ibverbs-providers)";
    }
    if (text.contains("failed to map segment")) {
      return "; java.io.tmpdir ("
          + System.getProperty("java.io.tmpdir")
          + ") may be mounted noexec: extract the library elsewhere and name it in"
          + " verbs.nativeLibrary";
    }
    return "";
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try {
      Files.deleteIfExists(dir.resolve(NativePlatform.LIBRARY_FILE));
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      LOG.debug("cannot delete {}", dir, e);
    }
  }

  public boolean isAvailable() {
    return cause == null;
  }

  /** Why the library can't be used here; null when it can. */
  public Throwable unavailabilityCause() {
    return cause;
  }

  /**
   * @throws UnsatisfiedLinkError with the cached cause when the library can't be used
   */
  public void ensureAvailable() {
    if (cause != null) {
      throw linkError(cause.getMessage(), cause);
    }
  }

  /** Where the library came from; null when none was found. */
  public Source source() {
    return source;
  }

  /** The {@code verbs.nativeLibrary} value of the call that loaded it ("" when not set). */
  public String requestedPath() {
    return requested;
  }

  /**
   * What the library reported: {@code version} (the JNI version, 32), and the layout sizes {@code
   * sockAddrInSize}, {@code sendWrSize}, {@code recvWrSize}, {@code sgeSize}, {@code wcSize},
   * {@code remoteAddressOffset}, {@code rkeyOffset}. Empty when unavailable.
   */
  public Map<String, Integer> nativeInfo() {
    return info;
  }

  /**
   * The class loader that defines DiSNI and {@code transport.verbs.disni}; null when unavailable.
   */
  ClassLoader classLoader() {
    return loader;
  }

  /**
   * Creates an instance of a class of {@code io.rdmashuffle.transport.verbs.disni} inside the DiSNI
   * class loader, through its public no-argument constructor, seen as {@code type} (a type the
   * parent loader defines).
   *
   * @throws UnsatisfiedLinkError when the library is unavailable (with the cached cause)
   */
  public <T> T newInstance(String className, Class<T> type) throws ReflectiveOperationException {
    ensureAvailable();
    Objects.requireNonNull(type);
    if (!DisniClassLoader.isChildFirst(className) || className.startsWith("com.ibm.disni.")) {
      throw new IllegalArgumentException(
          className + " is not in io.rdmashuffle.transport.verbs.disni");
    }
    Class<?> c = Class.forName(className, true, loader);
    return type.cast(c.getConstructor().newInstance());
  }

  /** One line for logs and the doctor: where it came from and what it reported, or why not. */
  public String describe() {
    if (cause != null) {
      return "unavailable: " + cause.getMessage();
    }
    List<String> parts = new ArrayList<>();
    parts.add(
        switch (source) {
          case CONFIGURED -> "configured " + location;
          case LIBRARY_PATH -> "found on java.library.path: " + location;
          case BUNDLED -> "bundled " + location;
        });
    parts.add("JNI version " + info.get("version"));
    return String.join(", ", parts);
  }

  @Override
  public String toString() {
    return "NativeLibrary[" + describe() + "]";
  }
}
