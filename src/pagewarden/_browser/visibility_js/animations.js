// pagewarden visibility snapshot, part: settling animations.
// Concatenated after setup.js; see there.
//
// A page that fades its content in (an opacity transition on load, a class added when a section scrolls
// into view, a CSS animation) is often mid-way when the snapshot is taken; judged as it stands, the text
// would count as hidden although a person sees it a moment later. So running animations and transitions
// are judged by their end state: each one of the document timeline whose end is at most FINISH_WITHIN_MS
// away is finished (Animation.finish()), and the computed styles read by the walk are then its end
// values: the last keyframe with animation-fill-mode forwards/both, the element's own style otherwise.
// Content that ends hidden (a fade-out, a fade-in without a forwards fill, an element whose own opacity
// is 0) stays hidden. Scroll-driven animations (animation-timeline: scroll() or view()) are judged by their
// end state too: what the element looks like once scrolled through. Animations that never end (infinite
// iterations, a zero playback rate), end later than FINISH_WITHIN_MS (a year-long "fade-in" is hiding, not
// showing) or are paused are left as they are and judged as they stand. Finishing changes no DOM node; the page's
// transitionend/animationend handlers run after the snapshot, which is taken synchronously.
  let animationsFinished = 0;
  let animationsLeft = 0;
  // `owner` is the document or an open shadow root: a document's list leaves out the animations inside
  // shadow trees, so the walk calls this again for each shadow root before judging its content.
  function finishEndingAnimations(owner) {
    let list;
    try {
      list = owner.getAnimations();
    } catch (e) {
      return;
    }
    for (let i = 0; i < list.length && animationsFinished + animationsLeft < maxNodes; i++) {
      const animation = list[i];
      try {
        if (animation.playState !== "running" || !animation.effect) continue;
        if (animation.timeline !== doc.timeline) {
          // Scroll-driven (a scroll or view timeline: the fade-in as a section scrolls into view): moved to
          // the document timeline, where its "auto" duration is 0, so it is finished at once like the others.
          const scrollDriven = typeof win.ScrollTimeline === "function" && animation.timeline instanceof win.ScrollTimeline;
          if (!scrollDriven) {
            animationsLeft += 1;
            continue;
          }
          animation.timeline = doc.timeline;
        }
        const rate = animation.playbackRate;
        const timing = animation.effect.getComputedTiming();
        const end = timing.endTime;
        const local = typeof timing.localTime === "number" ? timing.localTime : 0;
        const remaining = rate > 0 ? (end - local) / rate : rate < 0 ? local / -rate : Infinity;
        if (Number.isFinite(remaining) && remaining <= FINISH_WITHIN_MS) {
          animation.finish();
          animationsFinished += 1;
        } else {
          animationsLeft += 1;
        }
      } catch (e) {
        animationsLeft += 1;
      }
    }
  }
  finishEndingAnimations(doc);
