(* mapchurn in OCaml (the peer of bench/mapchurn.c; see there): the same AVL
   tree with path copying, insert, delete, delete-min and rotations. *)
type m = Tip | Node of m * m * int * int * int (* left right key value height *)

let height = function Tip -> 0 | Node (_, _, _, _, h) -> h

let node l k v r =
  let hl = height l and hr = height r in
  Node (l, r, k, v, (if hl > hr then hl else hr) + 1)

let balance l k v r =
  let hl = height l and hr = height r in
  if hl > hr + 1 then
    match l with
    | Node (ll, lr, lk, lv, _) ->
        if height ll >= height lr then node ll lk lv (node lr k v r)
        else (
          match lr with
          | Node (mll, mlr, mk, mv, _) -> node (node ll lk lv mll) mk mv (node mlr k v r)
          | Tip -> assert false)
    | Tip -> assert false
  else if hr > hl + 1 then
    match r with
    | Node (rl, rr, rk, rv, _) ->
        if height rr >= height rl then node (node l k v rl) rk rv rr
        else (
          match rl with
          | Node (mrl, mrr, mk, mv, _) -> node (node l k v mrl) mk mv (node mrr rk rv rr)
          | Tip -> assert false)
    | Tip -> assert false
  else node l k v r

let rec insert k v = function
  | Tip -> node Tip k v Tip
  | Node (l, r, tk, tv, _) ->
      if k < tk then balance (insert k v l) tk tv r
      else if k > tk then balance l tk tv (insert k v r)
      else balance l tk v r

(* The smallest entry's key and value go to the refs: no tuple per level. *)
let rec delete_min mk mv = function
  | Node (Tip, r, k, v, _) ->
      mk := k;
      mv := v;
      r
  | Node (l, r, k, v, _) -> balance (delete_min mk mv l) k v r
  | Tip -> assert false

let rec delete k = function
  | Tip -> Tip
  | Node (l, r, tk, tv, _) ->
      if k < tk then balance (delete k l) tk tv r
      else if k > tk then balance l tk tv (delete k r)
      else (
        match (l, r) with
        | Tip, _ -> r
        | _, Tip -> l
        | _ ->
            let mk = ref 0 and mv = ref 0 in
            let r' = delete_min mk mv r in
            balance l !mk !mv r')

let rec member k = function
  | Tip -> false
  | Node (l, r, tk, _, _) -> if k < tk then member k l else if k > tk then member k r else true

let mk_key j = j * 2654435761 land 0x7fffffff

let size = ref 0 and keysum = ref 0 and valsum = ref 0 and bad = ref 0

let rec census t lo hi =
  match t with
  | Tip -> 0
  | Node (l, r, k, v, h) ->
      let hl = census l lo k in
      let hr = census r k hi in
      let h' = (if hl > hr then hl else hr) + 1 in
      if k <= lo || k >= hi || abs (hl - hr) > 1 || h' <> h then incr bad;
      incr size;
      keysum := !keysum + k;
      valsum := !valsum + v;
      h'

let () =
  let live = Bench_stats.arg 0 1000 and ops = Bench_stats.arg 1 10000 in
  let m = ref Tip in
  for j = 0 to live - 1 do
    m := insert (mk_key j) j !m
  done;
  let found = ref 0 in
  for j = 0 to ops - 1 do
    m := delete (mk_key j) (insert (mk_key (live + j)) (live + j) !m);
    if member (mk_key (j + (live / 2))) !m then incr found
  done;
  ignore (census !m (-1) (1 lsl 31));
  let wk = ref 0 and wv = ref 0 in
  for j = ops to ops + live - 1 do
    wk := !wk + mk_key j;
    wv := !wv + j
  done;
  Printf.printf "mapchurn: live %d ops %d size %d keysum %d valsum %d found %d\n%!" live ops !size
    !keysum !valsum !found;
  let check = Bench_stats.check "mapchurn" in
  check "order or balance faults" !bad 0;
  check "size" !size live;
  check "key sum" !keysum !wk;
  check "value sum" !valsum !wv;
  check "lookups found" !found ops
