/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our JNI library under DiSNI, loaded the way production loads it. Runs in its own Surefire
 * execution ({@code native-checkjni} in rdma-buffers' pom) with {@code -Xcheck:jni}, DiSNI's {@code
 * --add-exports}, and an empty {@code java.library.path}.
 */
@Timeout(60)
class NativeLibraryTest {
  private static final String KEY = "spark.shuffle.rdma.verbs.nativeLibrary";
  private static final ClassLoader PARENT = NativeLibraryTest.class.getClassLoader();

  @TempDir Path tmp;

  @BeforeAll
  static void bundledLibraryIsPresent() {
    assumeTrue(
        PARENT.getResource(NativePlatform.resource()) != null,
        "no " + NativePlatform.resource() + ": built without rdma-core's headers or -DskipNative");
  }

  private static String libraryPath() {
    return System.getProperty("java.library.path", "");
  }

  private static NativeLibrary attempt(String configured, String libraryPath) {
    return NativeLibrary.attempt(configured, KEY, PARENT, libraryPath);
  }

  private static void assertAvailable(NativeLibrary lib) {
    assertTrue(lib.isAvailable(), () -> "unavailable: " + lib.unavailabilityCause());
  }

  private Path copyOfBundled(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(NativePlatform.LIBRARY_FILE);
    try (InputStream in = PARENT.getResourceAsStream(NativePlatform.resource())) {
      Files.copy(in, file);
    }
    return file;
  }

  /** {@code disni.NativeCallsProbe}, inside the DiSNI class loader of a fresh load. */
  @SuppressWarnings("unchecked")
  private static Callable<Map<String, String>> probe() throws ReflectiveOperationException {
    NativeLibrary lib = attempt("", libraryPath());
    assertAvailable(lib);
    return lib.newInstance("io.rdmashuffle.transport.verbs.disni.NativeCallsProbe", Callable.class);
  }

  @Test
  void thisTestRunsUnderJniChecks() {
    List<String> jvmArgs = ManagementFactory.getRuntimeMXBean().getInputArguments();
    assertTrue(jvmArgs.contains("-Xcheck:jni"), "surefire execution native-checkjni: " + jvmArgs);
  }

  /** -Xcheck:jni prints its findings instead of failing: read them from a child JVM. */
  @Test
  void jniChecksFindNothingToReport() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xcheck:jni",
                "--add-exports",
                "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-Djava.library.path=" + libraryPath(),
                "-cp",
                System.getProperty("java.class.path"),
                JniCheckMain.class.getName())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertTrue(p.waitFor(30, TimeUnit.SECONDS), out);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("_postSend threw java.io.IOException"), out);
    assertTrue(out.contains("probe done"), out);
    assertFalse(out.contains("WARNING in native method"), out);
    assertFalse(out.contains("FATAL ERROR in native method"), out);
  }

  @Test
  void bundledLibraryLoadsFromTheJarResourceWithNothingOnLibraryPath() {
    for (String dir : libraryPath().split(File.pathSeparator)) {
      assertFalse(
          Files.exists(Path.of(dir.isEmpty() ? "." : dir, NativePlatform.LIBRARY_FILE)),
          "java.library.path must not offer a libdisni.so here: " + libraryPath());
    }
    NativeLibrary lib = attempt("", libraryPath());

    assertAvailable(lib);
    assertEquals(NativeLibrary.Source.BUNDLED, lib.source());
    assertTrue(lib.describe().startsWith("bundled native/"), lib.describe());
    Path extracted = ((DisniClassLoader) lib.classLoader()).library();
    assertFalse(Files.exists(extracted), "the extracted copy is deleted after loading");
    assertFalse(Files.exists(extracted.getParent()), "and so is its private folder");
  }

  @Test
  void libraryReportsVersion32AndDisnisLayouts() {
    NativeLibrary lib = attempt("", libraryPath());

    assertAvailable(lib);
    // DiSNI 2.1's own defaults (SockAddrIn, NatIbvSendWR, ...): matching them, DiSNI keeps them.
    assertEquals(
        Map.of(
            "version", 32,
            "sockAddrInSize", 28,
            "sendWrSize", 72,
            "recvWrSize", 32,
            "sgeSize", 16,
            "wcSize", 48,
            "remoteAddressOffset", 40,
            "rkeyOffset", 48),
        lib.nativeInfo());
  }

  @Test
  void configuredPathToMissingFileNamesTheSettingAndThePath() {
    NativeLibrary lib = attempt("/nonexistent/libdisni.so", libraryPath());

    assertFalse(lib.isAvailable());
    assertEquals(NativeLibrary.Source.CONFIGURED, lib.source());
    assertEquals(
        KEY + "=/nonexistent/libdisni.so: no such file", lib.unavailabilityCause().getMessage());
    UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, lib::ensureAvailable);
    assertEquals(lib.unavailabilityCause().getMessage(), e.getMessage());
  }

  @Test
  void configuredRelativePathIsRejected() {
    NativeLibrary lib = attempt("libdisni.so", libraryPath());

    assertFalse(lib.isAvailable());
    assertEquals(
        KEY + "=libdisni.so: not an absolute path", lib.unavailabilityCause().getMessage());
  }

  @Test
  void configuredFileThatIsNoLibraryGivesTheLoadersReason() throws IOException {
    // An ELF executable, not a shared library (a text file would do too, but makes the JVM
    // print a stack guard warning about it before dlopen refuses it).
    Path notALibrary = Files.copy(Path.of("/bin/true"), tmp.resolve("libdisni.so"));

    NativeLibrary lib = attempt(notALibrary.toString(), libraryPath());

    assertFalse(lib.isAvailable());
    String message = lib.unavailabilityCause().getMessage();
    assertTrue(message.startsWith("loading " + notALibrary + " failed: "), message);
    assertTrue(message.contains("UnsatisfiedLinkError"), message);
    assertTrue(lib.unavailabilityCause().getCause() instanceof UnsatisfiedLinkError);
  }

  @Test
  void libraryWithoutDisnisFunctionsFailsAtTheProbeNotAtFirstUse() throws IOException {
    Path other = Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
    assumeTrue(Files.exists(other), "no " + other + " to stand in for a wrong library");
    Path wrong = Files.copy(other, tmp.resolve("libdisni.so"));

    NativeLibrary lib = attempt(wrong.toString(), libraryPath());

    assertFalse(lib.isAvailable());
    String message = lib.unavailabilityCause().getMessage();
    assertTrue(message.contains("NativeDispatcher._getVersion()"), message);
  }

  @Test
  void libraryOnJavaLibraryPathIsUsedBeforeTheBundledOne() throws IOException {
    Path file = copyOfBundled(tmp.resolve("lib"));

    NativeLibrary lib = attempt("", "/nonexistent" + File.pathSeparator + file.getParent());

    assertAvailable(lib);
    assertEquals(NativeLibrary.Source.LIBRARY_PATH, lib.source());
    assertTrue(lib.describe().contains(file.toString()), lib.describe());
  }

  @Test
  void configuredPathWinsOverJavaLibraryPath() throws IOException {
    Path configured = copyOfBundled(tmp.resolve("configured"));
    Path onPath = copyOfBundled(tmp.resolve("onpath"));

    NativeLibrary lib = attempt(configured.toString(), onPath.getParent().toString());

    assertAvailable(lib);
    assertEquals(NativeLibrary.Source.CONFIGURED, lib.source());
    assertTrue(lib.describe().contains(configured.toString()), lib.describe());
  }

  @Test
  void processWideLoadHappensOnceAndCachesItsResult() {
    NativeLibrary first = NativeLibrary.load("", KEY);
    NativeLibrary again = NativeLibrary.load("/some/other/libdisni.so", KEY);

    assertSame(first, again);
    assertAvailable(first);
    assertEquals("", again.requestedPath());
  }

  @Test
  void callsWithoutDeviceOrObjectFailCleanly() throws Exception {
    Map<String, String> outcomes = probe().call();

    // Every native method of NativeDispatcher is there (no UnsatisfiedLinkError) and refuses
    // a null object id with an IOException or a negative result, as DiSNI declares it.
    assertEquals(
        48, outcomes.keySet().stream().filter(k -> k.startsWith("_")).count(), "" + outcomes);
    outcomes.forEach(
        (method, outcome) ->
            assertFalse(outcome.contains("UnsatisfiedLinkError"), method + " " + outcome));
    assertEquals("returned 32", outcomes.get("_getVersion"));
    assertEquals("returned 28", outcomes.get("_getSockAddrInSize"));
    assertEquals(
        "returned 0", outcomes.get("_ackCmEvent"), "events are acknowledged in _getCmEvent");
    assertEquals("returned -22", outcomes.get("_getCmEvent"), "-EINVAL for a null channel");
    assertEquals("returned -22", outcomes.get("_destroyCmId"));
    assertEquals("returned -1", outcomes.get("_queryOdpSupport"));
    for (String m :
        new String[] {
          "_createId",
          "_createQP",
          "_bindAddr",
          "_listen",
          "_resolveAddr",
          "_resolveRoute",
          "_connect",
          "_accept",
          "_allocPd",
          "_createCompChannel",
          "_createCQ",
          "_modifyQP",
          "_regMr",
          "_deregMr",
          "_postSend",
          "_postRecv",
          "_pollCQ",
          "_reqNotifyCQ",
          "_getCqEvent",
          "_getContext",
          "_getQpNum",
          "_getContextFd",
          "_getContextNumCompVectors",
          "_getPdHandle",
          "_expPrefetchMr"
        }) {
      assertTrue(
          outcomes.get(m).startsWith("threw java.io.IOException: "), m + " " + outcomes.get(m));
    }
    for (String m :
        new String[] {
          "_disconnect", "_destroyEventChannel", "_destroyQP", "_getSrcAddr", "_getDstAddr",
          "_destroyEp", "_ackCqEvent", "_destroyCompChannel", "_deallocPd", "_destroyCQ"
        }) {
      assertEquals("returned -22", outcomes.get(m), m);
    }
    for (String m :
        new String[] {
          "NativeExtras.destroyQp",
          "NativeExtras.moveQpToError",
          "NativeExtras.odpCaps",
          "NativeExtras.prefetch",
          "NativeExtras.awaitCompletion"
        }) {
      assertEquals("returned -22", outcomes.get(m), m + ": -EINVAL for a null id");
    }
    assertTrue(
        outcomes.get("NativeExtras.odpReadCheck").startsWith("threw java.io.IOException: "),
        "no context: " + outcomes.get("NativeExtras.odpReadCheck"));
    assertEquals("returned -9", outcomes.get("NativeExtras.wake(-1)"), "-EBADF");
    assertEquals("returned fd ok, wake 0, close 0", outcomes.get("NativeExtras.wakeup"));
    assertTrue(
        outcomes.get("NativeExtras.deviceOdpCaps").startsWith("returned "),
        "a device list, possibly empty: " + outcomes.get("NativeExtras.deviceOdpCaps"));
    assertFalse(outcomes.get("NativeAffinity.getAffinity").equals("returned 0"));
    assertEquals("returned done", outcomes.get("NativeAffinity.setAffinity(current)"));
  }

  @Test
  void eventChannelWithoutRdmaDeviceThrowsRatherThanCrashes() throws Exception {
    assumeTrue(
        !Files.exists(Path.of("/dev/infiniband/rdma_cm")),
        "this host has RDMA-CM: nothing to refuse");
    Callable<Map<String, String>> probe = probe();

    String outcome = probe.call().get("RdmaEventChannel.createEventChannel");

    assertTrue(outcome.startsWith("threw java.io.IOException: rdma_create_event_channel"), outcome);
    assertTrue(outcome.contains("(errno "), outcome);
    assertTrue(
        probe.call().get("_createEventChannel").startsWith("threw java.io.IOException: "),
        "and again, through the dispatcher itself");
  }

  @Test
  void newInstanceRefusesClassesOutsideTheDisniPackage() {
    NativeLibrary lib = attempt("", libraryPath());
    assertAvailable(lib);

    assertThrows(
        IllegalArgumentException.class,
        () -> lib.newInstance("io.rdmashuffle.transport.verbs.NativePlatform", Object.class));
    assertThrows(
        IllegalArgumentException.class,
        () -> lib.newInstance("com.ibm.disni.verbs.IbvWC", Object.class));
  }

  @Test
  void unavailableLibraryRefusesNewInstanceWithItsCause() {
    NativeLibrary lib = attempt("/nonexistent/libdisni.so", libraryPath());

    UnsatisfiedLinkError e =
        assertThrows(
            UnsatisfiedLinkError.class,
            () ->
                lib.newInstance("io.rdmashuffle.transport.verbs.disni.NativeCheck", Object.class));
    assertNotNull(e.getCause());
    assertTrue(e.getMessage().contains("no such file"), e.getMessage());
  }
}
