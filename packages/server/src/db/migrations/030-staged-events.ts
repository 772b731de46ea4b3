/**
 * A graph write in one round trip (decision 034).
 *
 * The statements that create entities and append observations build their
 * own change-log events (`stage_events`): they leave them in a setting of the
 * transaction, `engram.staged_<slot>`, with the most observations any entity
 * they grew now holds, and the append (features/graph/changes.repository.ts)
 * takes them from there. So the server need not read the statement's answer
 * before it sends the append and COMMIT: the whole write leaves in one
 * message. Such a statement also refuses keys that name no entity (SQLSTATE
 * EP002, the keys as a JSON array), since nothing behind it can roll it back
 * any more; and the append refuses a write into an account or space deleted
 * meanwhile (`refuse_write`, EP003, 'Account' or 'Space'). A write that
 * recorded no event forgets the history rows it wrote (`forget_call`): their
 * seq is the next call's. A function, called only then, because a DELETE in
 * every append would fire graph_history's statement trigger every time.
 *
 * `accounts.last_event_at`: the time of the account's last recorded call. The
 * server stamps a call's events before it holds the account's lock now, so
 * the append stamps them no earlier than this, on the row it updates anyway:
 * an account's events stay in time order as in seq order.
 */
export const sql = /* sql */ `
  alter table accounts add column last_event_at timestamptz;
  update accounts a set last_event_at = c.at
    from (select account_id, max(at) as at from graph_calls group by account_id) c
   where c.account_id = a.id;

  create function stage_events(slot int, events jsonb, largest int, missing jsonb) returns boolean
  language plpgsql as $$
  begin
    if jsonb_array_length(missing) > 0 then
      raise exception using errcode = 'EP002', message = missing::text;
    end if;
    if slot is not null then
      perform set_config('engram.staged_' || slot,
                         jsonb_build_object('events', events, 'largest', largest)::text, true);
    end if;
    return true;
  end
  $$;

  create function forget_call(space_id uuid, call_seq bigint) returns boolean
  language sql as $$
    delete from graph_history h where h.space_id = $1 and h.seq = $2;
    select true;
  $$;

  create function refuse_write(gone text) returns boolean
  language plpgsql as $$
  begin
    raise exception using errcode = 'EP003', message = gone;
  end
  $$;
`;
