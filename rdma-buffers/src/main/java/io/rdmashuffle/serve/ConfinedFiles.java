/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Opens a file below a trusted directory so that what is opened really lies there, whatever the
 * owner of the directories in between does meanwhile: each path component is opened relative to the
 * one before it ({@code openat}), none may be a symbolic link, and the file actually opened is
 * checked on its descriptor (fstat): a regular file of the expected owner, with one name only, the
 * one checked before the open. A user who owns a job's output directory and swaps it for a symbolic
 * link, or its file for a hard link of another user's file (for the open only, and back), gets a
 * refusal, not another user's file. The NodeManager services open every map output they serve this
 * way.
 *
 * <p>On platforms without secure directory streams (not Linux), it refuses rather than opening by
 * name.
 */
public final class ConfinedFiles {
  private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

  private ConfinedFiles() {}

  /**
   * Opens {@code root/components...} for reading only.
   *
   * @param owner the user the file must belong to, or null for any
   * @throws NoSuchFileException when a component does not exist
   * @throws RefusedException when a component is a link or not a directory, or the file is not a
   *     regular file of {@code owner}
   * @throws UnavailableException when this process may not open the file (its mode): a problem of
   *     the serving node's set-up, not of the map output; the message names the file, its mode and
   *     owner, and this process's user
   */
  public static FileChannel open(Path root, List<String> components, String owner)
      throws IOException {
    if (components.isEmpty()) {
      throw new IllegalArgumentException("no file below " + root);
    }
    for (String c : components) {
      if (c.isEmpty() || c.equals(".") || c.equals("..") || c.contains("/")) {
        throw new RefusedException("path component '" + c + "' below " + root + ": not a name");
      }
    }
    DirectoryStream<Path> top = Files.newDirectoryStream(root);
    if (!(top instanceof SecureDirectoryStream<Path> dir)) {
      top.close();
      throw new RefusedException(
          "this platform can't open files relative to a directory;"
              + " refusing to serve "
              + root.resolve(String.join("/", components)));
    }
    try {
      for (int i = 0; i < components.size() - 1; i++) {
        Path name = root.getFileSystem().getPath(components.get(i));
        SecureDirectoryStream<Path> next;
        try {
          next = dir.newDirectoryStream(name, NOFOLLOW);
        } catch (NoSuchFileException e) {
          throw e;
        } catch (IOException e) {
          throw new RefusedException(
              describe(root, components, i)
                  + " is not a directory (a link, or another kind of file): "
                  + e.getMessage());
        }
        dir.close();
        dir = next;
      }
      return openFile(dir, root, components, owner);
    } finally {
      dir.close();
    }
  }

  private static FileChannel openFile(
      SecureDirectoryStream<Path> dir, Path root, List<String> components, String owner)
      throws IOException {
    int last = components.size() - 1;
    Path name = root.getFileSystem().getPath(components.get(last));
    Set<OpenOption> options = new HashSet<>();
    options.add(StandardOpenOption.READ);
    options.add(LinkOption.NOFOLLOW_LINKS);
    PosixFileAttributes before = attributes(dir, name);
    check(before, root, components, owner);
    SeekableByteChannel ch;
    try {
      ch = dir.newByteChannel(name, options);
    } catch (NoSuchFileException e) {
      throw e;
    } catch (AccessDeniedException e) {
      throw denied(describe(root, components, last), before, e);
    } catch (IOException e) {
      throw new RefusedException(describe(root, components, last) + " can't be opened: " + e);
    }
    try {
      if (!(ch instanceof FileChannel fc)) {
        throw new RefusedException(describe(root, components, last) + " is not a plain file");
      }
      checkOpened(fc, before, root, components, owner);
      return fc;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * Checks the file this process holds open (fstat of the descriptor), not what its name leads to:
   * its name's owner could swap another file in for the open and back before a second look by name
   * (an A-B-A swap). It must be the regular file of {@code owner} checked by name before the open
   * (same device and inode) and have no other name: a hard link is how another user's file gets
   * into a directory its owner controls.
   */
  private static void checkOpened(
      FileChannel fc, PosixFileAttributes before, Path root, List<String> components, String owner)
      throws IOException {
    String where = describe(root, components, components.size() - 1);
    OpenFileStatus opened;
    try {
      opened = OpenFileStatus.of(fc);
    } catch (IOException e) {
      throw new RefusedException(
          "can't check the open file " + where + " (" + e.getMessage() + "); refusing to serve it");
    }
    if (before.fileKey() == null || !before.fileKey().equals(opened.fileKey)) {
      throw new RefusedException(where + " was replaced while being opened");
    }
    if (!opened.regularFile) {
      throw new RefusedException(where + " is not a regular file");
    }
    if (owner != null && (opened.owner == null || !opened.owner.getName().equals(owner))) {
      throw new RefusedException(
          where
              + " belongs to "
              + (opened.owner == null ? "nobody" : opened.owner.getName())
              + ", not "
              + owner);
    }
    if (opened.links != 1) {
      throw new RefusedException(
          where + " has " + opened.links + " links (a hard link of another file?)");
    }
  }

  /**
   * An open the file's mode refuses this process: what an operator needs to fix it (the file, its
   * mode, owner and group, and the user this process runs as).
   */
  static UnavailableException denied(
      String file, PosixFileAttributes a, AccessDeniedException cause) {
    return new UnavailableException(
        file
            + " (mode "
            + PosixFilePermissions.toString(a.permissions())
            + ", owner "
            + (a.owner() == null ? "?" : a.owner().getName())
            + ", group "
            + (a.group() == null ? "?" : a.group().getName())
            + ") can't be opened for reading by this process's user "
            + System.getProperty("user.name")
            + ": permission denied",
        cause);
  }

  private static PosixFileAttributes attributes(SecureDirectoryStream<Path> dir, Path name)
      throws IOException {
    PosixFileAttributeView view =
        dir.getFileAttributeView(name, PosixFileAttributeView.class, NOFOLLOW);
    if (view == null) {
      throw new RefusedException("no POSIX attributes for " + name);
    }
    return view.readAttributes();
  }

  private static void check(PosixFileAttributes a, Path root, List<String> components, String owner)
      throws RefusedException {
    String where = describe(root, components, components.size() - 1);
    if (!a.isRegularFile()) {
      throw new RefusedException(where + " is not a regular file (a link or a device?)");
    }
    UserPrincipal actual = a.owner();
    if (owner != null && (actual == null || !actual.getName().equals(owner))) {
      throw new RefusedException(
          where
              + " belongs to "
              + (actual == null ? "nobody" : actual.getName())
              + ", not "
              + owner);
    }
  }

  private static String describe(Path root, List<String> components, int upTo) {
    return root.resolve(String.join("/", components.subList(0, upTo + 1))).toString();
  }
}
