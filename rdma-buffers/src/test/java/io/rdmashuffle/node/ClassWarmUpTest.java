/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmashuffle.node.warmup.WarmUpProbe;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassWarmUpTest {
  private static final List<String> PATHS = List.of("a/b/", "a/c/");
  private static final List<String> EXCLUDED = List.of("a/b/x/");

  @Test
  void classesUnderThePathsAreListedFromADirectory(@TempDir Path dir) throws Exception {
    for (String f :
        List.of(
            "a/b/One.class",
            "a/b/One$Inner.class",
            "a/b/package-info.class",
            "a/b/x/Excluded.class",
            "a/c/Two.class",
            "a/d/Other.class",
            "a/b/notes.txt")) {
      Path p = dir.resolve(f);
      Files.createDirectories(p.getParent());
      Files.write(p, new byte[0]);
    }
    assertEquals(
        List.of("a.b.One", "a.b.One$Inner", "a.c.Two"),
        ClassWarmUp.classNames(dir, PATHS, EXCLUDED));
  }

  @Test
  void classesUnderThePathsAreListedFromAJar(@TempDir Path dir) throws Exception {
    Path jar = dir.resolve("x.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (String f : List.of("a/c/Two.class", "a/b/x/Excluded.class", "a/b/One.class")) {
        out.putNextEntry(new JarEntry(f));
        out.closeEntry();
      }
    }
    assertEquals(List.of("a.b.One", "a.c.Two"), ClassWarmUp.classNames(jar, PATHS, EXCLUDED));
  }

  @Test
  void aLocationThatIsNeitherListsNothing(@TempDir Path dir) throws Exception {
    assertEquals(List.of(), ClassWarmUp.classNames(dir.resolve("missing"), PATHS, EXCLUDED));
    Path notAJar = dir.resolve("not.jar");
    try (OutputStream out = Files.newOutputStream(notAJar)) {
      out.write("not a zip".getBytes());
    }
    assertEquals(List.of(), ClassWarmUp.classNames(notAJar, PATHS, EXCLUDED));
  }

  @Test
  void classesAreLinkedWithoutRunningTheirInitializers() {
    ClassWarmUp.Outcome o =
        ClassWarmUp.load(
            WarmUpProbe.class, List.of("io/rdmashuffle/node/warmup/WarmUpTarget"), List.of());
    assertEquals(1, o.linked());
    assertEquals(0, o.skipped());
    assertFalse(WarmUpProbe.TARGET_INITIALIZED.get(), "the warm-up ran a static initializer");
  }

  @Test
  void theReadingAndServingPathsLoadWithoutASkip() {
    ClassWarmUp.Outcome o = ClassWarmUp.readingAndServing();
    // the fetch, transport, serving, memory and layout packages: hundreds of classes
    assertTrue(o.linked() > 200, "linked " + o.linked());
    assertEquals(0, o.skipped());
    assertTrue(
        ClassWarmUp.classNames(ClassWarmUp.class, ClassWarmUp.PATHS, List.of()).stream()
            .anyMatch(n -> n.startsWith("io.rdmashuffle.transport.verbs.")),
        "the verbs classes are there to be excluded");
    assertTrue(
        ClassWarmUp.classNames(
                ClassWarmUp.class, ClassWarmUp.PATHS, List.of("io/rdmashuffle/transport/verbs/"))
            .stream()
            .noneMatch(n -> n.startsWith("io.rdmashuffle.transport.verbs.")));
  }
}
