//! `engram stats`: counts per kind and status, and index health.

use std::process::ExitCode;

use serde_json::{Map, Value, json};

use crate::cli::context::Context;
use crate::clock::Timestamp;
use crate::storage::index::{Filter, Validity};
use crate::storage::record::{Kind, Status};
use crate::storage::vectors::VectorFile;

pub fn run(ctx: &Context, now: Timestamp) -> anyhow::Result<ExitCode> {
    let store = ctx.open_synced()?;
    let index = store.index();
    let mut by_kind = Map::new();
    for kind in Kind::ALL {
        let filter = Filter {
            kinds: vec![kind],
            ..Filter::default()
        };
        by_kind.insert(kind.to_string(), json!(index.count(&filter)?));
    }
    let mut by_status = Map::new();
    for status in Status::ALL {
        let filter = Filter {
            status: Some(status),
            ..Filter::default()
        };
        by_status.insert(status.to_string(), json!(index.count(&filter)?));
    }
    let current = index.count(&Filter {
        validity: Validity::CurrentAt(now),
        ..Filter::default()
    })?;
    let (files, broken) = store.file_counts();
    let records = index.num_docs();
    let vectors = match (
        store.embedder(),
        VectorFile::open(&store.vault().vectors_path()),
    ) {
        (None, _) => json!({ "embedder": null, "rows": 0 }),
        (Some(e), Ok(Some(f))) => {
            let rows = store.live_vector_rows(&f)?;
            json!({
                "embedder": e.name(),
                "rows": rows,
                "dim": f.header().dim,
                "in_sync": f.header().embedder == e.name() && rows as u64 >= records,
            })
        }
        (Some(e), _) => json!({ "embedder": e.name(), "rows": 0, "in_sync": records == 0 }),
    };
    let stats = json!({
        "vault": store.vault().root(),
        "records": records,
        "current": current,
        "kinds": Value::Object(by_kind),
        "statuses": Value::Object(by_status),
        "broken": broken,
        "index": { "documents": records, "files": files, "in_sync": records as usize == files - broken },
        "vectors": vectors,
    });
    if ctx.out.json {
        ctx.out.json(&stats);
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = format!("vault    {}\n", store.vault().root().display());
    text.push_str(&format!("records  {records} ({current} current)\n"));
    for kind in Kind::ALL {
        text.push_str(&format!(
            "  {:<11} {}\n",
            kind.as_str(),
            stats["kinds"][kind.as_str()]
        ));
    }
    for status in Status::ALL {
        text.push_str(&format!(
            "  {:<11} {}\n",
            status.as_str(),
            stats["statuses"][status.as_str()]
        ));
    }
    text.push_str(&format!("broken   {broken} (see `engram doctor`)\n"));
    match store.embedder() {
        Some(e) => text.push_str(&format!(
            "vectors  {} rows by {}\n",
            stats["vectors"]["rows"],
            e.name()
        )),
        None => text.push_str("vectors  none (no embedder configured: recall uses BM25)\n"),
    }
    ctx.out.print(&text);
    Ok(ExitCode::SUCCESS)
}
