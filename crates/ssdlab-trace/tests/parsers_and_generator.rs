//! Parsers on hand-written samples of every format (good and malformed lines), detection, gzip,
//! and the generated Heavy 2011 trace against its published statistics.

use ssdlab_trace::{generate, write_msr, ReadOptions, TimeUnit, TraceFormat, TraceOp, TraceReader, TraceRecord, TraceStats, Workload};
use std::io::{BufReader, Cursor};

fn read(text: &str, format: Option<TraceFormat>, skip_bad: bool) -> ssdlab_core::Result<(TraceFormat, Vec<TraceRecord>, u64)> {
    let reader = TraceReader::from_reader("sample", Box::new(BufReader::new(Cursor::new(text.to_string()))), format, skip_bad)?;
    let format = reader.format();
    let mut reader = reader;
    let mut out = Vec::new();
    for r in reader.by_ref() {
        out.push(r?);
    }
    Ok((format, out, reader.skipped()))
}

#[test]
fn msr_csv() {
    let text = "128166372003061629,hm,0,Read,3154059264,4096,1010\n128166372003071629,hm,0,Write,8192,16384,500\n";
    let (f, r, _) = read(text, None, false).unwrap();
    assert_eq!(f, TraceFormat::Msr);
    assert_eq!(
        r[0],
        TraceRecord { time_ns: 0, op: TraceOp::Read, offset_bytes: 3154059264, len_bytes: 4096, latency_ns: Some(101_000), line: 1, content_hash: None }
    );
    assert_eq!(r[1].time_ns, 1_000_000);
    assert_eq!(r[1].op, TraceOp::Write);
}

#[test]
fn blkparse_text() {
    let text = "  8,0    0        1     0.000000000  4162  Q   R 1000 + 8 [fio]\n  8,0    0        2     0.000001000  4162  G   R 1000 + 8 [fio]\n  8,0    1        3     0.000500000  4163  Q  WS 2048 + 16 [jbd2]\n  8,0    1        4     0.000600000  4163  Q   D 4096 + 64 [fstrim]\n  8,0    1        5     0.000700000  4163  Q   FN [kworker]\nCPU0 (8,0):\n Reads Queued:           1,        4KiB\n";
    let (f, r, _) = read(text, None, false).unwrap();
    assert_eq!(f, TraceFormat::Blkparse);
    assert_eq!(r.len(), 3);
    assert_eq!((r[0].op, r[0].offset_bytes, r[0].len_bytes), (TraceOp::Read, 512_000, 4096));
    assert_eq!((r[1].op, r[1].time_ns, r[1].len_bytes), (TraceOp::Write, 500_000, 8192));
    assert_eq!(r[2].op, TraceOp::Trim);
    // blkparse prints a line per input file before the events (`blkparse -i sda > trace.txt`):
    // skipped, with or without --format (before: "cannot tell the trace format").
    let real = format!("Input file sda.blktrace.0 added\nInput file sda.blktrace.1 added\n{text}");
    for format in [None, Some(TraceFormat::Blkparse)] {
        let (f, r2, skipped) = read(&real, format, false).unwrap();
        assert_eq!((f, skipped), (TraceFormat::Blkparse, 0));
        assert_eq!(r2.iter().map(|x| (x.op, x.offset_bytes)).collect::<Vec<_>>(), r.iter().map(|x| (x.op, x.offset_bytes)).collect::<Vec<_>>());
        assert_eq!(r2[0].line, 3);
    }
}

#[test]
fn fio_iologs() {
    let v2 = "fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb read 0 4096\n/dev/sdb wait 100\n/dev/sdb write 8192 4096\n/dev/sdb trim 0 1048576\n/dev/sdb close\n";
    let (f, r, _) = read(v2, None, false).unwrap();
    assert_eq!(f, TraceFormat::FioV2);
    assert_eq!(r.len(), 3);
    assert_eq!(r[1].time_ns, 100_000);
    // fio writes v3 timestamps in microseconds (`utime_since_now`) and replays their differences
    // as microsecond delays: 5 and 7 are 2 us apart (read as milliseconds before).
    let v3 = "fio version 3 iolog\n0 /dev/sdb add\n0 /dev/sdb open\n5 /dev/sdb read 4096 4096\n7 /dev/sdb write 0 8192\n9 /dev/sdb close\n";
    let (f, r, _) = read(v3, None, false).unwrap();
    assert_eq!(f, TraceFormat::FioV3);
    assert_eq!(r.len(), 2);
    assert_eq!(r[1].time_ns, 2_000);
}

#[test]
fn real_world_variants_of_the_formats() {
    // A CSV header naming the MSR/SNIA columns is skipped (detected from it, or with --format).
    let msr = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n128166372003061629,hm,0,Read,4096,4096,1010\n128166372003071629,hm,0,Write,8192,16384,500\n";
    for format in [None, Some(TraceFormat::Msr)] {
        let (f, r, _) = read(msr, format, false).unwrap();
        assert_eq!((f, r.len(), r[0].line, r[1].time_ns), (TraceFormat::Msr, 2, 2, 1_000_000));
    }
    // SPC: a header, and the optional fields the format allows after the timestamp.
    let (f, r, _) = read("ASU,LBA,Size,Opcode,Timestamp\n0,8,4096,r,0.000,7\n0,16,16384,w,0.001,7\n", None, false).unwrap();
    assert_eq!((f, r.len(), r[1].offset_bytes, r[1].time_ns), (TraceFormat::Spc, 2, 8192, 1_000_000));
    let (f, r, _) = read("0,8,4096,r,0.000,7\n0,16,16384,w,0.001,7\n", None, false).unwrap();
    assert_eq!((f, r.len()), (TraceFormat::Spc, 2));
    // blkparse: flushes queued by a journal carry no sector (or 0 sectors): no request.
    let text = "  8,0    0        1     0.000000000  4162  Q   R 8 + 8 [fio]\n  8,0    1       17     0.000163000   250  Q FWS [jbd2/sda1-8]\n  8,0    1       18     0.000170000   250  Q FWS 0 + 0 [jbd2/sda1-8]\n  8,0    0        2     0.000200000  4162  Q   W 16 + 8 [fio]\n";
    let (f, r, _) = read(text, None, false).unwrap();
    assert_eq!((f, r.len(), r[1].op, r[1].line), (TraceFormat::Blkparse, 2, TraceOp::Write, 4));
    // Several devices in one trace: refused at the first request of the second (fio's file
    // names, blkparse's major,minor, MSR's host and disk); --skip-bad keeps the first device's.
    let two = "fio version 2 iolog\n/dev/sda add\n/dev/sdb add\n/dev/sda write 0 4096\n/dev/sdb write 0 4096\n/dev/sda write 4096 4096\n";
    let err = read(two, None, false).unwrap_err().to_string();
    assert!(err.starts_with("sample:5: a request for device `/dev/sdb`, where the requests before are for `/dev/sda`"), "{err}");
    let (_, r, skipped) = read(two, None, true).unwrap();
    assert_eq!((r.len(), skipped), (2, 1));
    let err = read("  8,0    0        1     0.000000000  4162  Q   W 8 + 8 [fio]\n  8,16   0        2     0.000100000  4162  Q   W 8 + 8 [fio]\n", None, false)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("sample:2: a request for device `8,16`"), "{err}");
    let err = read("128166372003061629,hm,0,Read,4096,4096,1010\n128166372003071629,hm,1,Write,8192,16384,500\n", None, false).unwrap_err().to_string();
    assert!(err.starts_with("sample:2: a request for device `hm,1`, where the requests before are for `hm,0`"), "{err}");
    // A write without its sector is still malformed.
    let err = read("  8,0    0        1     0.000000000  4162  Q   W [fio]\n", None, false).unwrap_err().to_string();
    assert!(err.starts_with("sample:1:") && err.contains("sector + count"), "{err}");
}

#[test]
fn spc_and_disksim() {
    let (f, r, _) = read("0,303567,3584,w,0.000000\n1,55590,3072,r,0.026214\n", None, false).unwrap();
    assert_eq!(f, TraceFormat::Spc);
    assert_eq!((r[0].op, r[0].offset_bytes, r[0].len_bytes), (TraceOp::Write, 303567 * 512, 3584));
    assert_eq!(r[1].time_ns, 26_214_000);
    let (f, r, _) = read("0.000 0 1000 8 1\n1.500 0 2000 16 0\n", None, false).unwrap();
    assert_eq!(f, TraceFormat::DiskSim);
    assert_eq!((r[0].op, r[0].offset_bytes, r[0].len_bytes), (TraceOp::Read, 512_000, 4096));
    assert_eq!((r[1].op, r[1].time_ns), (TraceOp::Write, 1_500_000));
}

#[test]
fn malformed_lines_name_file_and_line_or_are_counted() {
    let text = "0,303567,3584,w,0.000000\n0,abc,3584,w,0.1\n0,303567,3584,x,0.2\n0,1,512,r,0.3\n";
    let err = read(text, None, false).unwrap_err().to_string();
    assert!(err.starts_with("sample:2:") && err.contains("LBA"), "{err}");
    let (_, r, skipped) = read(text, None, true).unwrap();
    assert_eq!((r.len(), skipped), (2, 2));
    let err = read("0.5 0 1 8 1\n0.1 0 2 8 1\n", None, false).unwrap_err().to_string();
    assert!(err.starts_with("sample:2:") && err.contains("backwards"), "{err}");
    let err = read("", None, false).unwrap_err().to_string();
    assert!(err.contains("empty"), "{err}");
    let err = read("hello world\n", None, false).unwrap_err().to_string();
    assert!(err.contains("cannot tell the trace format"), "{err}");
    let err = read("fio version 2 iolog\n/dev/sdb explode 0 1\n", None, false).unwrap_err().to_string();
    assert!(err.starts_with("sample:2:") && err.contains("explode"), "{err}");
}

#[test]
fn gzip_files_are_read_transparently() {
    use flate2::write::GzEncoder;
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("ssdlab-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.csv.gz");
    let mut enc = GzEncoder::new(std::fs::File::create(&path).unwrap(), flate2::Compression::fast());
    enc.write_all(b"0.000 0 1000 8 1\n1.500 0 2000 16 0\n").unwrap();
    enc.finish().unwrap();
    let records: Vec<_> = TraceReader::open(path.to_str().unwrap(), None, false).unwrap().collect::<Result<_, _>>().unwrap();
    assert_eq!(records.len(), 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn generated_heavy_2011_has_the_published_statistics() {
    let w = Workload::by_name("heavy2011").unwrap();
    let mut csv = Vec::new();
    write_msr(&mut csv, generate(w, 7)).unwrap();
    let reader = TraceReader::from_reader("heavy", Box::new(BufReader::new(Cursor::new(csv))), None, false).unwrap();
    let mut stats = TraceStats::new();
    for r in reader {
        stats.add(&r.unwrap());
    }
    assert_eq!(stats.ops[&TraceOp::Read], 2_168_893);
    assert_eq!(stats.ops[&TraceOp::Write], 1_783_447);
    let close = |got: f64, want: f64| (got - want).abs() / want < 0.02;
    for (size, share) in [(4096, 0.28), (16384, 0.10), (32768, 0.10), (65536, 0.04)] {
        assert!(close(stats.size_share(size), share), "{size}: {}", stats.size_share(size));
    }
    assert!(close(stats.sequential_share(), 0.42), "{}", stats.sequential_share());
    assert!(close(stats.mean_queue_depth(), 4.625), "{}", stats.mean_queue_depth());
    assert!(close(stats.qd1_share(), 0.59), "{}", stats.qd1_share());
    assert!(close(stats.bytes_written as f64, 106.32e9), "{}", stats.bytes_written);
}

fn read_bytes(bytes: &[u8], options: ReadOptions) -> ssdlab_core::Result<(Vec<TraceRecord>, u64)> {
    let mut reader = TraceReader::from_reader_with("sample", Box::new(BufReader::new(Cursor::new(bytes.to_vec()))), options)?;
    let mut out = Vec::new();
    for r in reader.by_ref() {
        out.push(r?);
    }
    Ok((out, reader.skipped()))
}

#[test]
fn addresses_sizes_and_times_that_would_wrap_are_refused_with_file_and_line() {
    // Regression: these wrapped silently into small, wrong numbers.
    for (text, format) in [
        ("0,36028797018963968,4096,r,0.0\n", TraceFormat::Spc),                     // LBA 2^55 x 512
        ("  8,0 0 1 0.0 1 Q R 36028797018963968 + 8 [x]\n", TraceFormat::Blkparse), // sector 2^55
        ("1,h,0,Read,4096,18446744073709551615,10\n", TraceFormat::Msr),            // size 2^64-1
        ("fio version 2 iolog\n/dev/x add\n/dev/x wait 18446744073709551000\n/dev/x read 0 4096\n", TraceFormat::FioV2),
        ("1,h,0,Read,4096,4096,184467440737095516\n", TraceFormat::Msr), // response time x 100
    ] {
        let err = read(text, Some(format), false).unwrap_err().to_string();
        assert!(err.starts_with("sample:"), "{format:?}: {err}");
        let line: u64 = err.split(':').nth(1).unwrap().parse().unwrap_or_else(|_| panic!("{err}"));
        assert!(line >= 1, "{err}");
    }
}

#[test]
fn a_non_utf8_line_names_its_line_or_is_skipped() {
    let mut bytes = b"0,8,4096,r,0.0\n".to_vec();
    bytes.extend_from_slice(b"0,16,\xff\xfe,w,0.1\n");
    bytes.extend_from_slice(b"0,24,4096,w,0.2\n");
    let err = read_bytes(&bytes, ReadOptions { format: Some(TraceFormat::Spc), ..ReadOptions::default() }).unwrap_err().to_string();
    assert!(err.starts_with("sample:2:") && err.contains("UTF-8"), "{err}");
    let (records, skipped) = read_bytes(&bytes, ReadOptions { format: Some(TraceFormat::Spc), skip_bad: true, ..ReadOptions::default() }).unwrap();
    assert_eq!((records.len(), skipped), (2, 1));
    assert_eq!(records[1].line, 3);
}

#[test]
fn time_unit_reads_nanosecond_disksim_traces() {
    // MQSim writes DiskSim-style traces with nanosecond times.
    let text = "1000 0 8 8 1\n2500 0 16 8 0\n";
    let ms = read_bytes(text.as_bytes(), ReadOptions { format: Some(TraceFormat::DiskSim), ..ReadOptions::default() }).unwrap().0;
    assert_eq!(ms[1].time_ns, 1_500_000_000);
    let ns = read_bytes(text.as_bytes(), ReadOptions { format: Some(TraceFormat::DiskSim), time_unit: Some(TimeUnit::Nanoseconds), ..ReadOptions::default() })
        .unwrap()
        .0;
    assert_eq!(ns[1].time_ns, 1_500);
}

#[test]
fn stats_memory_stays_bounded_with_absurd_response_times() {
    // Regression: every request outstanding forever made the queue-depth tracker and the
    // depth histogram grow with the trace (2.4 GB at 10M lines).
    let mut stats = TraceStats::new();
    for i in 0..200_000u64 {
        stats.add(&TraceRecord {
            time_ns: i * 1000,
            op: TraceOp::Read,
            offset_bytes: 0,
            len_bytes: 4096,
            latency_ns: Some(1 << 60),
            line: i + 1,
            content_hash: None,
        });
    }
    assert!(stats.queue_depths.len() <= ssdlab_trace::MAX_TRACKED_DEPTH as usize);
    let report = stats.report("msr", 0);
    assert_eq!(report.queue_depth_saturated, 200_000 - ssdlab_trace::MAX_TRACKED_DEPTH as u64);
}

#[test]
fn a_v2_iolog_counts_each_request_at_depth_one() {
    // Regression: a v2 log (no timestamps, every request at time 0) gave a mean queue depth of
    // 500.5 over 1000 requests, "deeper 99.2%".
    let mut text = "fio version 2 iolog\n/dev/x add\n/dev/x open\n".to_string();
    for i in 0..1000u64 {
        text += &format!("/dev/x write {} 4096\n", i * 8192);
    }
    let mut reader = TraceReader::from_reader("v2", Box::new(BufReader::new(Cursor::new(text))), None, false).unwrap();
    let mut stats = TraceStats::for_format(reader.format());
    for record in reader.by_ref() {
        stats.add(&record.unwrap());
    }
    assert_eq!(stats.mean_queue_depth(), 1.0);
    // A v3 log's timestamps still give its depths: two requests at the same microsecond overlap.
    let text = "fio version 3 iolog\n0 /dev/x add\n10 /dev/x write 0 4096\n10 /dev/x write 4096 4096\n20 /dev/x write 8192 4096\n";
    let mut reader = TraceReader::from_reader("v3", Box::new(BufReader::new(Cursor::new(text.to_string()))), None, false).unwrap();
    let mut stats = TraceStats::for_format(reader.format());
    for record in reader.by_ref() {
        stats.add(&record.unwrap());
    }
    assert!((stats.mean_queue_depth() - 4.0 / 3.0).abs() < 1e-9, "{}", stats.mean_queue_depth());
}
