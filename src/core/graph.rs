//! Graph algorithms the passes share: the strongly connected components of the
//! definitions a program uses (checking order, definition hashes) and of the bindings
//! of a paused machine state (their `let` order).

/// The strongly connected components of a graph (Tarjan's algorithm, iterative), each
/// emitted after every component it has an edge to; nodes of a component in
/// increasing order.
pub fn components(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    // The depth-first path: a node and how many of its edges are done.
    let mut path: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        path.push((root, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut done)) = path.last_mut() {
            if let Some(&w) = edges[v].get(*done) {
                *done += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    path.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            path.pop();
            if let Some(&(parent, _)) = path.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut group = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                group.sort_unstable();
                out.push(group);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::components;

    #[test]
    fn components_come_after_what_they_refer_to() {
        // 0 -> 1 -> 2 -> 1, 3 -> 0, 4 alone.
        let edges = vec![vec![1], vec![2], vec![1], vec![0], vec![]];
        assert_eq!(
            components(&edges),
            vec![vec![1, 2], vec![0], vec![3], vec![4]]
        );
        // A long chain costs no native stack.
        let n = 200_000;
        let chain: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let groups = components(&chain);
        assert_eq!(groups.len(), n);
        assert_eq!(groups[0], vec![n - 1]);
    }
}
