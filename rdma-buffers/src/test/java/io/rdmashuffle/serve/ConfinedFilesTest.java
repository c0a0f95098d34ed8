package io.rdmashuffle.serve;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
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
