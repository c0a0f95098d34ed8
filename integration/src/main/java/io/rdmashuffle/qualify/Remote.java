/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a command "on" a host: on this machine ({@code local}: every host of {@code --hosts} is an
 * address of this machine, as the two Soft-RoCE devices of one guest are), or through a command
 * template such as {@code ssh -o BatchMode=yes {host}}, which gets the command as one shell-quoted
 * word list. rdma-shuffle's own steps run {@code bin/rdma-shuffle} at the same path on every host
 * ({@code qualifyCommand}).
 */
final class Remote {
  /** {@code --remote}'s value that runs every host's commands on this machine. */
  static final String LOCAL = "local";

  private final String template;
  private final String qualifyCommand;

  /**
   * @param template {@link #LOCAL}, or words with {@code {host}} where the host goes
   * @param qualifyCommand the path of {@code bin/rdma-shuffle} on the hosts
   */
  Remote(String template, String qualifyCommand) {
    if (!template.equals(LOCAL) && !template.contains("{host}")) {
      throw new IllegalArgumentException(
          "--remote " + template + ": needs {host} where the host goes, or local");
    }
    this.template = template;
    this.qualifyCommand = qualifyCommand;
  }

  boolean local() {
    return template.equals(LOCAL);
  }

  /** The words that run {@code command} on {@code host}. */
  List<String> argv(String host, List<String> command) {
    if (local()) {
      return List.copyOf(command);
    }
    List<String> out = new ArrayList<>();
    for (String w : template.trim().split("\\s+")) {
      out.add(w.replace("{host}", host));
    }
    StringBuilder quoted = new StringBuilder();
    for (String w : command) {
      quoted.append(quoted.length() == 0 ? "" : " ").append(quote(w));
    }
    out.add(quoted.toString());
    return out;
  }

  /** The words that run {@code bin/rdma-shuffle qualify ARGS} on {@code host}. */
  List<String> qualifyArgv(String host, List<String> args) {
    List<String> c = new ArrayList<>(List.of(qualifyCommand, "qualify"));
    c.addAll(args);
    return argv(host, c);
  }

  Process start(List<String> argv) throws IOException {
    return new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.PIPE).start();
  }

  /** A word as the POSIX shell reads it back unchanged. */
  static String quote(String word) {
    if (!word.isEmpty() && word.matches("[A-Za-z0-9_@%+=:,./-]+")) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
