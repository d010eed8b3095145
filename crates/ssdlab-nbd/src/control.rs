//! The control socket of a served drive: a Unix socket that answers one command per connection
//! (`stats`: the live summary as JSON; `series`: the per-second series as CSV; `power-cut`:
//! cut the drive's power now, answer what was lost, and end the process).

use ssdlab_serve::Server;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::sync::Arc;

/// Listen on `path` in a background thread; returns what was bound, for
/// [`crate::socket_path::release`]. The path was claimed before ([`crate::socket_path::claim`]):
/// nothing is removed here, so a file that appeared since makes the bind fail.
pub fn listen(path: &str, server: Arc<Server>) -> std::io::Result<crate::socket_path::Bound> {
    let listener = UnixListener::bind(path)?;
    let bound = crate::socket_path::bound(path)?;
    std::thread::Builder::new().name("ssdlab-control".into()).spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut command = String::new();
            if reader.read_line(&mut command).is_err() {
                continue;
            }
            let reply = match command.trim() {
                "stats" => server.stats_json(),
                "series" => server.series_csv(),
                "power-cut" => {
                    let message = server.power_cut();
                    let mut writer = &stream;
                    let _ = writer.write_all(format!("{{\"power_cut\": {:?}}}\n", message).as_bytes());
                    let _ = writer.flush();
                    drop(reader);
                    let _ = stream.shutdown(std::net::Shutdown::Both);
                    crate::lose_power(&message);
                }
                other => format!("{{\"error\": \"unknown command `{}` (expected stats, series or power-cut)\"}}", other.replace('"', "'")),
            };
            let mut writer = &stream;
            let _ = writer.write_all(reply.as_bytes());
            let _ = writer.write_all(b"\n");
        }
    })?;
    Ok(bound)
}
