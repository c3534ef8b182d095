// Reads a soak run's NDJSON events back into attempts, checking on the way that they tell a
// coherent story: stories in order, attempts numbered 1, 2, … and each one ended exactly once,
// by a checkpoint or by a revert to the checkpoint of the time.

/**
 * @typedef {{storyId: string, attempt: number, accepted: boolean, kind: string | null,
 *   reason: string | null, sha: string | null, savedRef: string | null}} SoakAttempt
 */

/**
 * @returns {{attempts: SoakAttempt[], stories: string[], baseSha: string | null,
 *   finished: Record<string, unknown> | null, exhausted: Record<string, unknown>[]}}
 */
export function readSoakEvents(events, { change, maxRetries, onComplete }, problems) {
  const add = (message) => problems.push(`events: ${message}`);
  const started = events[0];
  if (started?.type !== 'run.started') {
    add(`the first event is ${started?.type ?? 'missing'}, not run.started`);
    return { attempts: [], stories: [], baseSha: null, finished: null, exhausted: [] };
  }
  const stories = started.stories.map((s) => s.id);
  const attempts = [];
  const exhausted = [];
  const doneCount = new Map();
  let checkpoint = started.baseSha;
  let current = null;
  let finished = null;

  for (const event of events.slice(1)) {
    if (finished) add(`${event.type} after run.finished`);
    const at = current ? `${current.storyId}-${current.attempt}` : 'no attempt';
    switch (event.type) {
      case 'story.started': {
        if (current) add(`attempt ${at} never ended before ${event.storyId}-${event.attempt}`);
        const next = stories.find((id) => !attempts.some((a) => a.storyId === id && a.accepted));
        const tried = attempts.filter((a) => a.storyId === event.storyId).length;
        if (event.storyId !== next)
          add(`story ${event.storyId} started while ${next} was not done`);
        if (event.attempt !== tried + 1)
          add(`story ${event.storyId} started attempt ${event.attempt} after ${tried}`);
        if (event.attempt > maxRetries + 1)
          add(`story ${event.storyId} got attempt ${event.attempt}`);
        current = {
          storyId: event.storyId,
          attempt: event.attempt,
          accepted: false,
          kind: null,
          reason: null,
          sha: null,
          savedRef: null,
        };
        attempts.push(current);
        break;
      }
      case 'attempt.failed':
        if (
          !current ||
          event.storyId !== current.storyId ||
          event.attempt !== current.attempt ||
          current.kind
        ) {
          add(`attempt.failed ${event.storyId}-${event.attempt} during ${at}`);
        } else Object.assign(current, { kind: event.kind, reason: event.reason });
        break;
      case 'checkpoint.reverted':
        if (
          !current?.kind ||
          event.storyId !== current.storyId ||
          event.attempt !== current.attempt
        ) {
          add(`checkpoint.reverted ${event.storyId}-${event.attempt} during ${at}`);
        } else {
          if (event.toSha !== checkpoint)
            add(`${at} reverted to ${event.toSha}, not the checkpoint ${checkpoint}`);
          const ref = `refs/ralphtool/${change}/attempts/${at}`;
          if (event.savedRef !== ref) add(`${at} saved under ${event.savedRef}, not ${ref}`);
          current.savedRef = event.savedRef;
          current = null;
        }
        break;
      case 'checkpoint.created':
        if (!current || current.kind || event.storyId !== current.storyId)
          add(`checkpoint.created ${event.storyId} during ${at}`);
        else {
          current.sha = event.sha;
          checkpoint = event.sha;
        }
        break;
      case 'story.completed':
        if (
          !current?.sha ||
          event.storyId !== current.storyId ||
          event.attempts !== current.attempt
        ) {
          add(`story.completed ${event.storyId} (${event.attempts} attempts) during ${at}`);
        } else {
          current.accepted = true;
          doneCount.set(event.storyId, (doneCount.get(event.storyId) ?? 0) + 1);
          current = null;
        }
        break;
      case 'story.exhausted':
        exhausted.push(event);
        break;
      case 'error':
        if (event.fatal) add(`fatal error: ${event.message}`);
        break;
      case 'run.finished':
        finished = event;
        break;
      case 'run.started':
        add('a second run.started');
        break;
      default:
        break;
    }
  }
  if (current) add(`attempt ${current.storyId}-${current.attempt} never ended`);
  if (!finished) add('no run.finished event');
  for (const [id, count] of doneCount) if (count > 1) add(`story ${id} completed ${count} times`);

  const completed = attempts.filter((a) => a.accepted).length;
  if (finished) {
    if (finished.choice !== onComplete) add(`choice ${finished.choice}, asked for ${onComplete}`);
    if (finished.storiesCompleted !== completed)
      add(
        `run.finished says ${finished.storiesCompleted} stories completed, events show ${completed}`,
      );
    if (finished.storiesTotal !== stories.length)
      add(
        `run.finished says ${finished.storiesTotal} stories, run.started listed ${stories.length}`,
      );
    if (finished.outcome === 'complete' && (completed !== stories.length || exhausted.length > 0)) {
      add(
        `outcome complete with ${completed}/${stories.length} stories and ${exhausted.length} exhausted`,
      );
    }
    if (finished.outcome === 'max-retries')
      checkExhausted(attempts, exhausted, stories, maxRetries, add);
    if (finished.outcome !== 'complete' && finished.outcome !== 'max-retries')
      add(`outcome ${finished.outcome}`);
  }
  return { attempts, stories, baseSha: started.baseSha, finished, exhausted };
}

/** A max-retries run stops at the first story that failed every attempt, and only there. */
function checkExhausted(attempts, exhausted, stories, maxRetries, add) {
  const done = new Set(attempts.filter((a) => a.accepted).map((a) => a.storyId));
  const stuck = stories.find((id) => !done.has(id));
  const tries = attempts.filter((a) => a.storyId === stuck);
  if (exhausted.length !== 1 || exhausted[0].storyId !== stuck) {
    add(
      `max-retries: exhausted ${JSON.stringify(exhausted.map((e) => e.storyId))}, expected [${stuck}]`,
    );
  } else if (
    exhausted[0].attempts !== maxRetries + 1 ||
    tries.length !== maxRetries + 1 ||
    tries.some((a) => a.accepted)
  ) {
    add(
      `max-retries: story ${stuck} exhausted after ${exhausted[0].attempts} attempts (${tries.length} ran)`,
    );
  }
  const later = attempts.filter((a) => stories.indexOf(a.storyId) > stories.indexOf(stuck));
  if (later.length > 0) add(`stories after the exhausted ${stuck} were tried`);
}
