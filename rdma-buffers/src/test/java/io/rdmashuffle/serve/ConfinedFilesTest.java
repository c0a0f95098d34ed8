/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a NodeManager serves is the file below its trusted dir, whatever the directories' owner
 * swaps in meanwhile: no component may be a link, and the file's owner is checked on what was
 * opened.
 */
class ConfinedFilesTest {
  @TempDir Path dir;

  private Path job(String attempt, String content) throws Exception {
    Path out =
        Files.createDirectories(dir.resolve("local/usercache/alice/output").resolve(attempt));
    Files.writeString(out.resolve("file.out"), content);
    return out;
  }

  private static String read(FileChannel ch) throws Exception {
    ByteBuffer b = ByteBuffer.allocate((int) ch.size());
    ch.read(b, 0);
    return new String(b.array(), StandardCharsets.UTF_8);
  }

  private static List<String> path(String attempt) {
    return List.of("usercache", "alice", "output", attempt, "file.out");
  }

  @Test
  void opensTheFileBelowTheRoot() throws Exception {
    job("attempt_1", "alice's map output");
    String me = System.getProperty("user.name");
    try (FileChannel ch = ConfinedFiles.open(dir.resolve("local"), path("attempt_1"), me)) {
      assertEquals("alice's map output", read(ch));
    }
  }

  @Test
  void aDirectorySwappedForALinkIsRefused() throws Exception {
    job("attempt_1", "alice");
    Path bob = Files.createDirectories(dir.resolve("bob-secrets"));
    Files.writeString(bob.resolve("file.out"), "bob's map output");
    // the job's user replaces its attempt directory with a link to another user's directory
    Path attempt = dir.resolve("local/usercache/alice/output/attempt_1");
    Files.delete(attempt.resolve("file.out"));
    Files.delete(attempt);
    Files.createSymbolicLink(attempt, bob);
    RefusedException e =
        assertThrows(
            RefusedException.class,
            () -> ConfinedFiles.open(dir.resolve("local"), path("attempt_1"), null));
    assertTrue(e.getMessage().contains("attempt_1"), e.getMessage());
  }

  @Test
  void aFileSwappedForALinkIsRefused() throws Exception {
    Path out = job("attempt_2", "x");
    Path secret = Files.writeString(dir.resolve("secret"), "not yours");
    Files.delete(out.resolve("file.out"));
    Files.createSymbolicLink(out.resolve("file.out"), secret);
    assertThrows(
        RefusedException.class,
        () -> ConfinedFiles.open(dir.resolve("local"), path("attempt_2"), null));
  }

  @Test
  void theOwnerIsCheckedAndMissingFilesAreNotFound() throws Exception {
    job("attempt_3", "x");
    RefusedException e =
        assertThrows(
            RefusedException.class,
            () -> ConfinedFiles.open(dir.resolve("local"), path("attempt_3"), "nobody-here"));
    assertTrue(e.getMessage().contains("not nobody-here"), e.getMessage());
    assertThrows(
        NoSuchFileException.class,
        () -> ConfinedFiles.open(dir.resolve("local"), path("attempt_9"), null));
    assertThrows(
        RefusedException.class,
        () ->
            ConfinedFiles.open(dir.resolve("local"), List.of("usercache", "..", "file.out"), null));
  }

  /**
   * The review's scenario: the job's user owns its output directory and, while the NodeManager
   * opens {@code file.out}, swaps the name from its own file to a hard link of another user's file
   * and back (A-B-A). A check by name before and after the open sees its own file twice while the
   * open took the other one. Nothing of the other file may ever be returned.
   */
  @Test
  @Timeout(120)
  void aHardLinkSwappedInAndOutDuringTheOpenNeverServesTheLinkedFile() throws Exception {
    Path out = job("attempt_r", "the job's own output");
    Path own = dir.resolve("keep-own");
    Files.createLink(own, out.resolve("file.out"));
    Path victim = Files.createDirectories(dir.resolve("victim"));
    Path secret = Files.writeString(victim.resolve("file.out"), "another user's map output");
    // another user's file, as on a NodeManager: only a swap during the open could pass the owner
    // check, so this needs root (as the tests run in CI) to give the file away
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to chown");
    Files.setOwner(
        secret,
        secret.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
    String me = System.getProperty("user.name");
    Path tmp = out.resolve("tmp");
    AtomicBoolean stop = new AtomicBoolean();
    Thread swapper =
        new Thread(
            () -> {
              try {
                while (!stop.get()) {
                  Files.createLink(tmp, secret);
                  Files.move(tmp, out.resolve("file.out"), StandardCopyOption.ATOMIC_MOVE);
                  Files.createLink(tmp, own);
                  Files.move(tmp, out.resolve("file.out"), StandardCopyOption.ATOMIC_MOVE);
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "swapper");
    swapper.start();
    int served = 0;
    int breaches = 0;
    try {
      for (int i = 0; i < 20_000; i++) {
        try (FileChannel ch = ConfinedFiles.open(dir.resolve("local"), path("attempt_r"), me)) {
          served++;
          if (read(ch).startsWith("another")) {
            breaches++;
          }
        } catch (RefusedException | NoSuchFileException e) {
          // refused (a link, a swap seen) or between two names: both fine
        }
      }
    } finally {
      stop.set(true);
      swapper.join();
    }
    assertEquals(0, breaches, "opens that returned the linked file, of " + served + " served");
  }

  @Test
  void aFileWithMoreThanOneLinkIsRefused() throws Exception {
    Path out = job("attempt_l", "x");
    Files.createLink(dir.resolve("second-name"), out.resolve("file.out"));
    RefusedException e =
        assertThrows(
            RefusedException.class,
            () -> ConfinedFiles.open(dir.resolve("local"), path("attempt_l"), null));
    assertTrue(e.getMessage().contains("2 links"), e.getMessage());
    Files.delete(dir.resolve("second-name"));
    try (FileChannel ch = ConfinedFiles.open(dir.resolve("local"), path("attempt_l"), null)) {
      assertEquals("x", read(ch));
    }
  }

  @Test
  void aDeniedOpenIsUnavailableNamingTheFileItsModeItsOwnerAndTheUser() throws Exception {
    Path out = job("attempt_9", "x");
    Files.setPosixFilePermissions(
        out.resolve("file.out"),
        java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"));
    java.nio.file.attribute.PosixFileAttributes a =
        Files.readAttributes(
            out.resolve("file.out"), java.nio.file.attribute.PosixFileAttributes.class);
    UnavailableException e =
        ConfinedFiles.denied(
            out.resolve("file.out").toString(),
            a,
            new java.nio.file.AccessDeniedException(out.resolve("file.out").toString()));
    String me = System.getProperty("user.name");
    assertEquals(
        out.resolve("file.out")
            + " (mode rw-r-----, owner "
            + a.owner().getName()
            + ", group "
            + a.group().getName()
            + ") can't be opened for reading by this process's user "
            + me
            + ": permission denied",
        e.getMessage());
    assertInstanceOf(java.nio.file.AccessDeniedException.class, e.getCause());
  }
}
