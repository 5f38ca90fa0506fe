#!/usr/bin/env bash
# Writes the lab's own Scala stand-ins that 3.6's core LogSegment.scala
# needs compiled beside it, under <dir>: third-party pieces Debian lacks
# (scala-logging's Logger, scala-java8-compat's OptionConverters) and the
# few members of core files that would drag in the rest of core (CoreUtils,
# UnifiedLog's file names). They are written here, fresh, and contain no
# Kafka code; LogSegment.scala itself is compiled unchanged.
set -euo pipefail
dir="$1"
mkdir -p "$dir/com/typesafe/scalalogging" "$dir/scala/compat/java8" "$dir/kafka/utils" "$dir/kafka/log"

# scala-logging: a plain wrapper over an slf4j logger (no macros).
cat > "$dir/com/typesafe/scalalogging/Logger.scala" <<'SCALA'
package com.typesafe.scalalogging

import org.slf4j.{LoggerFactory, Marker}

/** Stand-in: forwards to the slf4j logger it wraps. */
final class Logger(val underlying: org.slf4j.Logger) {
  def trace(msg: String): Unit = underlying.trace(msg)
  def trace(msg: String, e: Throwable): Unit = underlying.trace(msg, e)
  def debug(msg: String): Unit = underlying.debug(msg)
  def debug(msg: String, e: Throwable): Unit = underlying.debug(msg, e)
  def info(msg: String): Unit = underlying.info(msg)
  def info(msg: String, e: Throwable): Unit = underlying.info(msg, e)
  def warn(msg: String): Unit = underlying.warn(msg)
  def warn(msg: String, e: Throwable): Unit = underlying.warn(msg, e)
  def error(msg: String): Unit = underlying.error(msg)
  def error(msg: String, e: Throwable): Unit = underlying.error(msg, e)
  def error(marker: Marker, msg: String): Unit = underlying.error(marker, msg)
  def error(marker: Marker, msg: String, e: Throwable): Unit = underlying.error(marker, msg, e)
}

object Logger {
  def apply(underlying: org.slf4j.Logger): Logger = new Logger(underlying)
  def apply(name: String): Logger = new Logger(LoggerFactory.getLogger(name))
}
SCALA

# scala-java8-compat: java.util.Optional* to scala.Option and back.
cat > "$dir/scala/compat/java8/OptionConverters.scala" <<'SCALA'
package scala.compat.java8

import java.util.{Optional, OptionalInt, OptionalLong}

/** Stand-in: the asScala/asJava conversions between Optional and Option. */
object OptionConverters {
  implicit class OptionalToScala[A](val o: Optional[A]) extends AnyVal {
    def asScala: Option[A] = if (o.isPresent) Some(o.get) else None
  }
  implicit class OptionalIntToScala(val o: OptionalInt) extends AnyVal {
    def asScala: Option[Int] = if (o.isPresent) Some(o.getAsInt) else None
  }
  implicit class OptionalLongToScala(val o: OptionalLong) extends AnyVal {
    def asScala: Option[Long] = if (o.isPresent) Some(o.getAsLong) else None
  }
  implicit class OptionToJava[A](val o: Option[A]) extends AnyVal {
    def asJava: Optional[A] = o match {
      case Some(a) => Optional.of(a)
      case None => Optional.empty[A]()
    }
  }
}
SCALA

# core's CoreUtils pulls in the cluster model and commons-validator; the
# segment and Logging use three members.
cat > "$dir/kafka/utils/CoreUtils.scala" <<'SCALA'
package kafka.utils

/** Stand-in for the three members LogSegment and Logging call. */
object CoreUtils {
  /** Runs the action; a failure is logged as a warning, not thrown. */
  def swallow(action: => Unit, logging: Logging): Unit =
    try action catch { case e: Throwable => logging.warn(String.valueOf(e.getMessage), e) }

  /** Runs every action; then throws the first failure, the others suppressed in it. */
  def tryAll(all: Seq[() => Unit]): Unit = {
    var failure: Throwable = null
    for (f <- all) {
      try f() catch {
        case e: Throwable => if (failure == null) failure = e else failure.addSuppressed(e)
      }
    }
    if (failure != null) throw failure
  }

  /** The lab registers no MBeans. */
  def registerMBean(mbean: Object, name: String): Boolean = false
}
SCALA

# core's UnifiedLog is most of core; the segment only names its files,
# which storage's LogFileUtils gives.
cat > "$dir/kafka/log/UnifiedLog.scala" <<'SCALA'
package kafka.log

import java.io.File
import java.nio.file.Files
import org.apache.kafka.storage.internals.log.LogFileUtils

/** Stand-in for the file-name members LogSegment's companion calls. */
object UnifiedLog {
  def logFile(dir: File, offset: Long, suffix: String = ""): File = LogFileUtils.logFile(dir, offset, suffix)
  def offsetIndexFile(dir: File, offset: Long, suffix: String = ""): File = LogFileUtils.offsetIndexFile(dir, offset, suffix)
  def timeIndexFile(dir: File, offset: Long, suffix: String = ""): File = LogFileUtils.timeIndexFile(dir, offset, suffix)
  def transactionIndexFile(dir: File, offset: Long, suffix: String = ""): File = LogFileUtils.transactionIndexFile(dir, offset, suffix)
  def deleteFileIfExists(file: File, suffix: String = ""): Unit = Files.deleteIfExists(new File(file.getPath + suffix).toPath)
}
SCALA
