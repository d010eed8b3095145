//! The block traces of cloud and enterprise storage (Alibaba Cloud, Tencent CBS, SNIA
//! SYSTOR '17) and FIU's traces with content hashes, on small samples written here: detection
//! from the first line or a header, every field, a bad line's error with its line number, the
//! choice of one volume among several, and the duplicate share of written blocks.

use ssdlab_trace::{ReadOptions, TimeUnit, TraceFormat, TraceOp, TraceReader, TraceRecord, TraceStats, VolumeChoice, MD5_OF_ZERO_4096};
use std::io::{BufReader, Cursor};

struct Read {
    format: TraceFormat,
    records: Vec<TraceRecord>,
    reader: TraceReader,
}

fn read_with(text: &str, options: ReadOptions) -> ssdlab_core::Result<Read> {
    let mut reader = TraceReader::from_reader_with("sample", Box::new(BufReader::new(Cursor::new(text.to_string()))), options)?;
    let format = reader.format();
    let mut records = Vec::new();
    for r in reader.by_ref() {
        records.push(r?);
    }
    Ok(Read { format, records, reader })
}

fn read(text: &str) -> ssdlab_core::Result<Read> {
    read_with(text, ReadOptions::default())
}

fn volume(id: &str) -> ReadOptions {
    ReadOptions { volume: VolumeChoice::parse(id), ..ReadOptions::default() }
}

fn error(text: &str, options: ReadOptions) -> String {
    match read_with(text, options) {
        Ok(r) => panic!("expected an error, read {} requests", r.records.len()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn alibaba_fields_units_and_detection() {
    // device_id,opcode,offset,length,timestamp: bytes, microseconds since the epoch.
    let text = "7,R,126703644672,4096,1577808000000626\n7,W,8192,16384,1577808000001626\n";
    let r = read(text).unwrap();
    assert_eq!(r.format, TraceFormat::Alibaba);
    assert_eq!(
        r.records[0],
        TraceRecord { time_ns: 0, op: TraceOp::Read, offset_bytes: 126703644672, len_bytes: 4096, latency_ns: None, line: 1, content_hash: None }
    );
    assert_eq!((r.records[1].op, r.records[1].offset_bytes, r.records[1].len_bytes, r.records[1].time_ns), (TraceOp::Write, 8192, 16384, 1_000_000));
    // A header naming the columns (the README's spelling `timestmap` too) is skipped.
    for header in ["device_id,opcode,offset,length,timestamp\n", "device_id,opcode,offset,length,timestmap\n"] {
        let r = read(&format!("{header}{text}")).unwrap();
        assert_eq!((r.format, r.records.len(), r.records[0].line), (TraceFormat::Alibaba, 2, 2));
    }
    assert_eq!(TraceFormat::parse("alibaba"), Some(TraceFormat::Alibaba));
    assert_eq!(TraceFormat::Alibaba.time_unit(), TimeUnit::Microseconds);
}

#[test]
fn tencent_fields_units_and_detection() {
    // Timestamp,Offset,Size,IOType,VolumeID: epoch seconds, 512-byte sectors, 0 read / 1 write.
    let text = "1538323200,1000,8,0,1283\n1538323203,2048,16,1,1283\n";
    let r = read(text).unwrap();
    assert_eq!(r.format, TraceFormat::Tencent);
    assert_eq!((r.records[0].op, r.records[0].offset_bytes, r.records[0].len_bytes, r.records[0].time_ns), (TraceOp::Read, 512_000, 4096, 0));
    assert_eq!((r.records[1].op, r.records[1].offset_bytes, r.records[1].len_bytes, r.records[1].time_ns), (TraceOp::Write, 1_048_576, 8192, 3_000_000_000));
    let r = read(&format!("Timestamp,Offset,Size,IOType,VolumeID\n{text}")).unwrap();
    assert_eq!((r.format, r.records.len()), (TraceFormat::Tencent, 2));
    assert_eq!(TraceFormat::parse("cbs"), Some(TraceFormat::Tencent));
}

#[test]
fn systor_fields_units_detection_and_blank_direction() {
    // Timestamp,Response,IOType,LUN,Offset,Size: epoch seconds to nanoseconds exactly, the
    // response time as the recorded service time, bytes.
    let text = "Timestamp,Response,IOType,LUN,Offset,Size\n1456135200.013118000,0.000806000,R,4,899056122368,131072\n1456135200.013119500,0.000100000,,4,0,4096\n1456135200.113118001,0.001,W,4,4096,8192\n";
    let r = read(text).unwrap();
    assert_eq!(r.format, TraceFormat::Systor);
    assert_eq!(
        r.records[0],
        TraceRecord { time_ns: 0, op: TraceOp::Read, offset_bytes: 899056122368, len_bytes: 131072, latency_ns: Some(806_000), line: 2, content_hash: None }
    );
    // The blank IOType (no response captured) is passed over and counted.
    assert_eq!(r.records.len(), 2);
    assert_eq!((r.records[1].op, r.records[1].time_ns, r.records[1].latency_ns, r.records[1].line), (TraceOp::Write, 100_000_001, Some(1_000_000), 4));
    assert_eq!(r.reader.requests_without_direction(), 1);
    // Without the header, detected from the first request.
    let r = read("1456135200.5,0.001,W,0,4096,4096\n").unwrap();
    assert_eq!(r.format, TraceFormat::Systor);
}

#[test]
fn fiu_fields_hashes_and_detection() {
    // timestamp(ns) pid process lba(512 B) size(512 B) op major minor md5.
    let text = "89968195792462 20782 gzip 283193184 8 W 6 0 56f11b711d91a065a2b6458eca924523\n89968195800462 20782 gzip 283193192 8 R 6 0 56f11b711d91a065a2b6458eca924523\n89968195900462 1 kjournald 16 8 W 6 0 620f0b67a91f7f74151bc5be745b7110\n";
    let r = read(text).unwrap();
    assert_eq!(r.format, TraceFormat::Fiu);
    assert_eq!(
        r.records[0],
        TraceRecord {
            time_ns: 0,
            op: TraceOp::Write,
            offset_bytes: 283193184 * 512,
            len_bytes: 4096,
            latency_ns: None,
            line: 1,
            content_hash: Some(0x56f11b711d91a065a2b6458eca924523)
        }
    );
    // Reads carry no content to write; the zero block's MD5 is the known one.
    assert_eq!((r.records[1].op, r.records[1].time_ns, r.records[1].content_hash), (TraceOp::Read, 8_000, None));
    assert_eq!(r.records[2].content_hash, Some(MD5_OF_ZERO_4096));
    // A process name with a space is still read (the fields are counted from both ends).
    let r = read("100 7 kworker u:2 16 8 W 8 1 56f11b711d91a065a2b6458eca924523\n").unwrap();
    assert_eq!((r.format, r.records[0].offset_bytes), (TraceFormat::Fiu, 8192));
    assert!(TraceFormat::Fiu.has_content_hashes() && !TraceFormat::Msr.has_content_hashes());
}

#[test]
fn a_bad_line_names_its_line_and_field() {
    let cases = [
        ("7,R,0,4096,1577808000000626\n7,X,0,4096,1577808000000627\n", "sample:2: opcode: `X` is neither R nor W"),
        ("7,R,0,4096,1577808000000626\n7,W,0,4096\n", "sample:2: expected 5 comma-separated fields (device_id,opcode,offset,length,timestamp), found 4"),
        ("1538323200,1000,8,0,1283\n1538323200,1000,8,2,1283\n", "sample:2: IOType: `2` is neither 0 (read) nor 1 (write)"),
        ("1538323200,1000,8,0,1283\n1538323200,1000,8,1,vol\n", "sample:2: VolumeID: `vol` is not a whole number"),
        ("1456135200.5,0.001,W,0,4096,4096\n1456135200.6,-1,W,0,4096,4096\n", "sample:2: Response: `-1` is not a non-negative decimal number"),
        ("1456135200.5,0.001,W,0,4096,4096\n1456135200.6,0.001,T,0,4096,4096\n", "sample:2: IOType: `T` is neither R, W nor blank"),
        ("100 7 gzip 16 8 W 8 1 56f11b711d91a065a2b6458eca924523\n200 7 gzip 16 8 W 8 1 56f11b711d91\n", "sample:2: md5: `56f11b711d91` is not an MD5 digest"),
        (
            "100 7 gzip 16 8 W 8 1 56f11b711d91a065a2b6458eca924523\n200 7 gzip 16 8 X 8 1 56f11b711d91a065a2b6458eca924523\n",
            "sample:2: op: `X` is neither R nor W",
        ),
        (
            "100 7 gzip 16 8 W 8 1 56f11b711d91a065a2b6458eca924523\n50 7 gzip 16 8 W 8 1 56f11b711d91a065a2b6458eca924523\n",
            "sample:2: timestamps go backwards",
        ),
        ("1538323200,1000,8,0,1283\n1538323200,99999999999999999999,8,1,1283\n", "sample:2: Offset:"),
    ];
    for (text, expected) in cases {
        let err = error(text, ReadOptions::default());
        assert!(err.starts_with(expected), "{err}\nexpected: {expected}");
    }
    // Named, a format reads the lines of another as bad ones.
    let err = error("7,R,0,4096,1577808000000626\n", ReadOptions { format: Some(TraceFormat::Tencent), ..ReadOptions::default() });
    assert!(err.starts_with("sample:1: Offset: `R` is not a whole number"), "{err}");
}

#[test]
fn one_volume_of_several_is_read_and_a_second_is_refused_without_a_choice() {
    // Alibaba's device, Tencent's volume, SYSTOR's LUN, FIU's major,minor: the same rule.
    let traces = [
        ("7,W,0,4096,1000000\n9,W,0,4096,1000001\n7,W,4096,4096,1000003\n", "7", "9"),
        ("1538323200,0,8,1,1283\n1538323201,0,8,1,55\n1538323202,8,8,1,1283\n", "1283", "55"),
        ("1456135200.5,0.001,W,4,0,4096\n1456135200.6,0.001,W,6,0,4096\n1456135200.7,0.001,W,4,4096,4096\n", "4", "6"),
        (
            "100 7 gzip 0 8 W 6 0 56f11b711d91a065a2b6458eca924523\n200 7 gzip 0 8 W 8 16 56f11b711d91a065a2b6458eca924523\n300 7 gzip 8 8 W 6 0 56f11b711d91a065a2b6458eca924524\n",
            "6,0",
            "8,16",
        ),
    ];
    for (text, first, second) in traces {
        let err = error(text, ReadOptions::default());
        assert!(err.starts_with(&format!("sample:2: a request for device `{second}`, where the requests before are for `{first}`")), "{err}");
        assert!(err.contains("--volume ID") && err.contains("trace stats --volume all"), "{err}");
        // --volume picks one: the other's requests are passed over and counted, times run from
        // the chosen volume's first request.
        let r = read_with(text, volume(second)).unwrap();
        assert_eq!((r.records.len(), r.records[0].time_ns, r.records[0].line), (1, 0, 2));
        assert_eq!(r.reader.other_volume_requests(), 2);
        let r = read_with(text, volume(first)).unwrap();
        assert_eq!((r.records.len(), r.records[1].line), (2, 3));
        assert_eq!(r.reader.volumes().0, {
            let mut v = vec![(first.to_string(), 2), (second.to_string(), 1)];
            v.sort();
            v
        });
        // `all` reads every volume (for statistics).
        assert_eq!(read_with(text, volume("all")).unwrap().records.len(), 3);
        // A volume the trace does not have is an error naming the ones it has.
        let err = error(text, volume("404"));
        assert!(err.starts_with("sample: --volume 404: no request of that volume in the trace (volumes: `"), "{err}");
        assert!(err.contains(&format!("`{first}`")) && err.contains(&format!("`{second}`")), "{err}");
    }
    // The formats read before volumes were chosen follow the same rule.
    let msr = "128166372003061629,hm,0,Read,4096,4096,1010\n128166372003071629,hm,1,Write,8192,16384,500\n";
    let r = read_with(msr, volume("hm,1")).unwrap();
    assert_eq!((r.records.len(), r.records[0].op), (1, TraceOp::Write));
    let blk = "  8,0    0        1     0.000000000  4162  Q   W 8 + 8 [fio]\n  8,16   0        2     0.000100000  4162  Q   W 8 + 8 [fio]\n";
    assert_eq!(read_with(blk, volume("8,16")).unwrap().records.len(), 1);
    let fio = "fio version 2 iolog\n/dev/sda add\n/dev/sdb add\n/dev/sda write 0 4096\n/dev/sdb write 0 4096\n";
    assert_eq!(read_with(fio, volume("/dev/sdb")).unwrap().records[0].line, 5);
    // SPC's ASUs and DiskSim's devices are one address space: --volume is refused for them.
    let err = error("0,8,4096,r,0.000\n", volume("0"));
    assert!(err.contains("--volume: spc traces name no volume"), "{err}");
}

#[test]
fn trace_stats_report_volumes_and_the_duplicate_share_of_written_blocks() {
    let a = "56f11b711d91a065a2b6458eca924523";
    let b = "00000000000000000000000000000abc";
    let z = "620f0b67a91f7f74151bc5be745b7110";
    let text = format!(
        "100 7 p 0 8 W 6 0 {a}\n200 7 p 8 8 W 6 0 {a}\n300 7 p 16 8 W 6 0 {b}\n400 7 p 24 8 W 6 0 {a}\n500 7 p 0 8 R 6 0 {a}\n600 7 p 32 8 W 6 0 {z}\n700 7 p 0 8 W 8 0 {b}\n"
    );
    let mut r = read_with(&text, volume("6,0")).unwrap();
    let mut stats = TraceStats::new();
    for rec in &r.records {
        stats.add(rec);
    }
    assert!(r.reader.next().is_none());
    let report = stats.report_for(&r.reader);
    assert_eq!(report.volumes, vec![("6,0".to_string(), 6), ("8,0".to_string(), 1)]);
    assert_eq!(report.other_volume_requests, 1);
    let content = report.content.expect("FIU writes carry hashes");
    // Five blocks written: a, a (dup), b, a (dup), zeros.
    assert_eq!((content.written_blocks, content.duplicate_blocks, content.zero_blocks, content.distinct_capped), (5, 2, 1, false));
    assert!((content.duplicate_share - 0.4).abs() < 1e-12);
    // Traces without hashes report no content.
    let mut stats = TraceStats::new();
    for rec in read("7,W,0,4096,1000000\n").unwrap().records {
        stats.add(&rec);
    }
    assert_eq!(stats.report("alibaba", 0).content, None);
}

#[test]
fn a_tar_archive_is_named_as_one() {
    // A ustar header block: the name, then the magic at byte 257, then the member's lines.
    let mut archive = vec![0u8; 512];
    archive[..13].copy_from_slice(b"2018-10-01-01");
    archive[257..263].copy_from_slice(b"ustar\0");
    archive.extend_from_slice(b"1538323200,1000,8,0,1283\n");
    let reader = TraceReader::from_reader_with("cbs.tgz", Box::new(BufReader::new(Cursor::new(archive))), ReadOptions::default());
    let err = reader.err().expect("refused").to_string();
    assert!(err.starts_with("cbs.tgz: a tar archive, not a trace") && err.contains("tar -xzf"), "{err}");
}

#[test]
fn skipped_bad_lines_are_no_requests_of_their_volume_and_messages_quote_the_file() {
    let msr = "128166372003061629,hm,0,Read,383496192,4096,1331\n\
               128166372016853709,hm,0,Write,8192,0,5\n\
               128166372016853710,hm,0,Write,8192,4096,5\n\
               128166372016853711,hm,0,Write,8192,4096,-5\n\
               128166372016853712,hm,1,Write,8192,0,5\n";
    let r = read_with(msr, ReadOptions { volume: VolumeChoice::All, skip_bad: true, ..ReadOptions::default() }).unwrap();
    assert_eq!(r.records.len(), 2);
    assert_eq!(r.reader.volumes().0, vec![("hm,0".to_string(), 2)]);
    // The value as the file spells it; a number too large said to be so; comments before the
    // first request skipped, as after it.
    let first = "128166372003061629,hm,0,Read,383496192,4096,1331\n";
    let err = error(&format!("{first}128166372003061630,hm,0,Wrte,383496192,4096,1331\n"), ReadOptions::default());
    assert!(err.contains("`Wrte` is neither Read nor Write"), "{err}");
    let err = error(&format!("{first}128166372003061630,hm,0,Read,99999999999999999999,4096,1331\n"), ReadOptions::default());
    assert!(err.contains("is too large"), "{err}");
    let r = read(&format!("# captured on hm\n{msr}").lines().take(2).collect::<Vec<_>>().join("\n")).unwrap();
    assert_eq!((r.format, r.records.len()), (TraceFormat::Msr, 1));
}
