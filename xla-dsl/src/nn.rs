//! The sources of `xla::nn`: generic `#[computation]`s kept as text in `xla-dsl/nn/*.rs`,
//! so that the macro can both expand them into the facade's `xla::nn` (`__nn!()`) and hand
//! them to any computation that calls `nn::dense(..)` (or `xla::nn::dense(..)`), in any
//! crate, as a generic callee.

/// The files, read when the macro runs.
const FILES: [&str; 6] = [
    include_str!("../nn/layers.rs"),
    include_str!("../nn/conv.rs"),
    include_str!("../nn/recurrent.rs"),
    include_str!("../nn/attention.rs"),
    include_str!("../nn/losses.rs"),
    include_str!("../nn/optim.rs"),
];

/// One computation of `xla::nn`.
pub struct Layer {
    /// Its name (`dense`).
    pub name: String,
    /// The arguments of its `#[computation(...)]` attribute (`grad(logits)`), as text.
    pub attr: String,
    /// The function without that attribute.
    pub item: syn::ItemFn,
}

/// Every computation of `xla::nn`, in file order.
///
/// # Errors
/// A file that does not parse (a bug in xla-rs, caught by its tests).
pub fn layers() -> Result<Vec<Layer>, syn::Error> {
    let mut out = Vec::new();
    for file in FILES {
        let file = syn::parse_file(file)?;
        for item in file.items {
            let syn::Item::Fn(mut item) = item else {
                continue;
            };
            let Some(at) = item
                .attrs
                .iter()
                .position(|a| a.path().is_ident("computation"))
            else {
                continue;
            };
            let attr = item.attrs.remove(at);
            let attr = match attr.meta {
                syn::Meta::List(list) => list.tokens.to_string(),
                _ => String::new(),
            };
            out.push(Layer {
                name: item.sig.ident.to_string(),
                attr,
                item,
            });
        }
    }
    Ok(out)
}

/// Every layer's name, attribute and source, read once per process: the symbolic check
/// runs the front end hundreds of times on one function (see [`crate::preconditions`]),
/// and parsing the six files each time cost ~70 ms per run of a function calling a layer.
fn sources() -> &'static [(String, String, String)] {
    static SOURCES: std::sync::OnceLock<Vec<(String, String, String)>> = std::sync::OnceLock::new();
    SOURCES.get_or_init(|| {
        let layers = layers().unwrap_or_default();
        layers
            .into_iter()
            .map(|l| {
                let source = quote::ToTokens::to_token_stream(&l.item).to_string();
                (l.name, l.attr, source)
            })
            .collect()
    })
}

/// The attribute and source of the layer `name`, as a generic callee takes them.
pub fn find(name: &str) -> Option<(String, String)> {
    let (_, attr, source) = sources().iter().find(|(n, ..)| n == name)?;
    Some((attr.clone(), source.clone()))
}

/// The names of the layers, for messages.
pub fn names() -> Vec<String> {
    sources().iter().map(|(n, ..)| n.clone()).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    #[test]
    fn every_file_parses_and_names_are_unique() {
        let names = super::names();
        assert_eq!(names.len(), 32, "{names:?}");
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        let (attr, source) = super::find("softmax_cross_entropy").unwrap();
        assert_eq!(attr, "grad (logits)");
        assert!(source.starts_with("# [doc"), "{source}");
        assert!(!source.contains("computation"));
    }
}
