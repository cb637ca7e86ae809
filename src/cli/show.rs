//! `engram show ID`: one record, as its file or as JSON.

use std::process::ExitCode;

use serde_json::{Value, json};

use crate::cli::args::ShowArgs;
use crate::cli::context::Context;
use crate::clock::format_time;

pub fn run(ctx: &Context, args: ShowArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.open_synced()?;
    let doc = store.resolve(&args.id)?;
    let loaded = store.vault().read(&doc.path)?;
    if !ctx.out.json {
        let text = std::fs::read_to_string(store.vault().abs(&loaded.rel))?;
        ctx.out.print(&text);
        return Ok(ExitCode::SUCCESS);
    }
    let r = &loaded.record;
    let mut v = json!({
        "id": r.id,
        "path": loaded.rel,
        "kind": r.kind.as_str(),
        "content": r.content(),
        "status": r.status.as_str(),
        "created": format_time(&r.created),
    });
    let obj = v.as_object_mut().expect("object");
    let strings = [
        ("subject", &r.subject),
        ("category", &r.category),
        ("durability", &r.durability),
        ("user", &r.user),
        ("agent", &r.agent),
        ("session", &r.session),
        ("supersedes", &r.supersedes),
        ("superseded_by", &r.superseded_by),
    ];
    for (k, val) in strings {
        if let Some(val) = val {
            obj.insert(k.into(), json!(val));
        }
    }
    let times = [
        ("updated", &r.updated),
        ("last_reinforced", &r.last_reinforced),
        ("valid_from", &r.valid_from),
        ("valid_to", &r.valid_to),
        ("expires", &r.expires),
    ];
    for (k, val) in times {
        if let Some(t) = val {
            obj.insert(k.into(), json!(format_time(t)));
        }
    }
    if let Some(x) = r.importance {
        obj.insert("importance".into(), json!(x));
    }
    if let Some(x) = r.confidence {
        obj.insert("confidence".into(), json!(x));
    }
    if let Some(x) = r.reinforced {
        obj.insert("reinforced".into(), json!(x));
    }
    if let Some(x) = r.pinned {
        obj.insert("pinned".into(), json!(x));
    }
    if !r.sources.is_empty() {
        obj.insert("sources".into(), json!(r.sources));
    }
    if !r.tags.is_empty() {
        obj.insert("tags".into(), json!(r.tags));
    }
    if !r.meta.is_empty() {
        obj.insert("meta".into(), json!(r.meta));
    }
    if !r.extra.is_empty() {
        let extra: Value = serde_json::to_value(&r.extra).unwrap_or(Value::Null);
        obj.insert("properties".into(), extra);
    }
    ctx.out.json(&v);
    Ok(ExitCode::SUCCESS)
}
